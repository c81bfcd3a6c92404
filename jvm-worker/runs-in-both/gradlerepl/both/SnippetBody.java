package gradlerepl.both;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a compiled K2 REPL snippet is run, the same in gradle-repl's worker and in an attached app: its class's
 * {@code INSTANCE}, its body method, and a value-class value boxed so it reads as the program shows it.
 *
 * <p>The body method is {@code $$eval}, but when it returns a value class (a Duration, a Result, a UInt, a project's
 * {@code @JvmInline} class) Kotlin 2.2 mangles its name to {@code $$eval-<hash>}, and its value is the underlying
 * representation (a Duration's {@code long}). The hash names the value class: the first 5 bytes of the MD5 of
 * {@code :L<its name>;} ({@code :L<its name>?;} when nullable), URL-safe Base64 without padding (the compiler's
 * {@code collectFunctionSignatureForManglingSuffix}, {@code md5base64}); it is looked for among the class names the
 * snippet's class file mentions. Kotlin 2.3+ records the value's type with the compiled snippet instead.
 * Dependency-free Java: compiled into the worker's facade and into the attach agent (jvm-worker/runs-in-both).
 */
public final class SnippetBody {
    /** The body method's name as the compiler gives it. */
    public static final String EVAL = "$$eval";
    private static final String MANGLED_PREFIX = EVAL + "-";
    // Value classes whose constants the compiler folds (`1u` is an int in the class file, which then never names UInt).
    private static final List<String> FOLDED = Arrays.asList("kotlin.UInt", "kotlin.ULong", "kotlin.UByte", "kotlin.UShort");
    private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][\\w$]*(?:/[A-Za-z_$][\\w$]*)*");

    private SnippetBody() {}

    /** The snippet's body method, plain or mangled, or null when it has none. */
    public static Method method(Class<?> snippetClass) {
        Method mangled = null;
        for (Method method : snippetClass.getMethods()) {
            if (method.getName().equals(EVAL)) {
                return method;
            }
            if (method.getName().startsWith(MANGLED_PREFIX)) {
                mangled = method;
            }
        }
        return mangled;
    }

    /**
     * The value class a mangled body method returns, by its Kotlin name ({@code kotlin.time.Duration}, with {@code ?}
     * when nullable), found among the names in the snippet's class file; null for a plain body or a name not found.
     */
    public static String mangledValueType(Method body, byte[] classFile) {
        if (!body.getName().startsWith(MANGLED_PREFIX) || classFile == null) {
            return null;
        }
        String suffix = body.getName().substring(MANGLED_PREFIX.length());
        Set<String> names = new LinkedHashSet<>();
        Matcher found = CLASS_NAME.matcher(new String(classFile, StandardCharsets.ISO_8859_1));
        while (found.find()) {
            String name = found.group();
            names.add(kotlinName(name));
            if (name.startsWith("L")) {
                names.add(kotlinName(name.substring(1))); // `Lkotlin/time/Duration;`
            }
        }
        names.addAll(FOLDED);
        for (String name : names) {
            if (md5base64(":L" + name + ";").equals(suffix)) {
                return name;
            }
            if (md5base64(":L" + name + "?;").equals(suffix)) {
                return name + "?";
            }
        }
        return null;
    }

    /**
     * A value of a value class named {@code typeName} boxed with the class's own {@code box-impl}, so it reads as the
     * program shows it ({@code 5s}, {@code Success(1)}, {@code Id(v=3)}); anything else, or a class that can't be
     * found through the snippet's loader, as it is.
     */
    public static Object boxed(Object value, String typeName, Class<?> snippetClass) {
        if (value == null || typeName == null || snippetClass == null) {
            return value;
        }
        String name = typeName.split("<", 2)[0];
        if (name.endsWith("?")) {
            name = name.substring(0, name.length() - 1);
        }
        Class<?> type = classNamed(name, snippetClass);
        if (type == null || type.isInstance(value)) {
            return value;
        }
        for (Method method : type.getDeclaredMethods()) {
            if (method.getName().equals("box-impl") && method.getParameterCount() == 1 && Modifier.isStatic(method.getModifiers())) {
                try {
                    method.setAccessible(true);
                    return method.invoke(null, value);
                } catch (ReflectiveOperationException | IllegalArgumentException | SecurityException e) {
                    return value;
                }
            }
        }
        return value;
    }

    /** The class a Kotlin type name means: as written, as a nested class ('.' → '$'), or as a snippet's own class. */
    private static Class<?> classNamed(String name, Class<?> snippetClass) {
        List<String> candidates = new ArrayList<>();
        candidates.add(name);
        String nested = name;
        while (nested.indexOf('.') >= 0) {
            int dot = nested.lastIndexOf('.');
            nested = nested.substring(0, dot) + '$' + nested.substring(dot + 1);
            candidates.add(nested);
        }
        candidates.add(snippetClass.getName() + "$" + name.substring(name.lastIndexOf('.') + 1));
        for (String candidate : candidates) {
            try {
                return Class.forName(candidate, false, snippetClass.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                // not this spelling
            }
        }
        return null;
    }

    private static String kotlinName(String internal) {
        return internal.replace('/', '.').replace('$', '.');
    }

    private static String md5base64(String signature) {
        try {
            byte[] digest = MessageDigest.getInstance("MD5").digest(signature.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 5));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5", e);
        }
    }
}
