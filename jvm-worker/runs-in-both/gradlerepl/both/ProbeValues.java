package gradlerepl.both;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * A probed value's text, read when the probe fires (what the value was then, not what it became): as a result's
 * ({@link ValueText}), except an object whose class has no toString of its own, shown by its fields one level deep
 * ({@code Cart(lines=[Line(name=a, price=10, qty=3)], discounted=false)}), as a debugger's variables view would.
 */
public final class ProbeValues {
    private ProbeValues() {}

    /** A value's text at a hit: its first characters, how long it was, or the error reading it gave. */
    public static final class Text {
        public final String text;
        public final int length;
        public final String error;

        Text(String text, int length, String error) {
            this.text = text;
            this.length = length;
            this.error = error;
        }

        public static Text failed(String message) {
            return new Text("", 0, message);
        }
    }

    public static Text text(Object value, int limit) {
        try {
            String full = value != null && !ownToString(value.getClass()) ? fields(value) : ValueText.of(value);
            return new Text(full.length() > limit ? full.substring(0, limit) : full, full.length(), null);
        } catch (Throwable thrown) {
            return Text.failed(thrown(thrown));
        }
    }

    /** What a throwable says: its class and message; a reflective call's own wrapper says nothing, what it wraps does. */
    public static String thrown(Throwable thrown) {
        Throwable cause = thrown instanceof InvocationTargetException && thrown.getCause() != null ? thrown.getCause() : thrown;
        return cause.getClass().getName() + (cause.getMessage() != null ? ": " + cause.getMessage() : "");
    }

    private static boolean ownToString(Class<?> type) {
        String name = type.getName();
        if (type.isArray() || type.isEnum() || name.startsWith("java.") || name.startsWith("kotlin.")) {
            return true;
        }
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            for (Method method : current.getDeclaredMethods()) {
                if (method.getName().equals("toString") && method.getParameterCount() == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String fields(Object value) throws IllegalAccessException {
        List<String> shown = new ArrayList<>();
        for (Class<?> current = value.getClass(); current != null && current != Object.class; current = current.getSuperclass()) {
            for (Field field : current.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || field.isSynthetic()) {
                    continue;
                }
                String text = field.trySetAccessible() ? ValueText.of(field.get(value)) : "<not readable>";
                shown.add(field.getName() + "=" + text);
            }
        }
        String simple = value.getClass().getSimpleName();
        String name = simple.isEmpty() ? value.getClass().getName().substring(value.getClass().getName().lastIndexOf('.') + 1) : simple;
        return name + "(" + String.join(", ", shown) + ")";
    }
}
