package gradlerepl.both;

import java.util.Arrays;

/**
 * A value's text as a session shows it, the same for a result and for describe, in gradle-repl's worker and in an
 * attached app: {@code String.valueOf}, but an array by its contents ({@code [1, 2]}, Kotlin's contentToString and
 * contentDeepToString), never {@code [I@1b6d3586}. A value-class value is boxed before it gets here
 * ({@link SnippetBody#boxed}). Dependency-free Java (jvm-worker/runs-in-both).
 */
public final class ValueText {
    private ValueText() {}

    public static String of(Object value) {
        if (value == null || !value.getClass().isArray()) {
            return String.valueOf(value);
        }
        if (value instanceof Object[]) {
            return Arrays.deepToString((Object[]) value);
        }
        // A primitive array: deepToString of a one-element array prints its element by its contents.
        String wrapped = Arrays.deepToString(new Object[] {value});
        return wrapped.substring(1, wrapped.length() - 1);
    }
}
