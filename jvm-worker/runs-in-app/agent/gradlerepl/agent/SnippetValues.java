package gradlerepl.agent;

import gradlerepl.both.SnippetBody;
import gradlerepl.both.ValueText;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A describe's values, read where the session's snippets ran: each named (snippet class, field) read from the
 * snippet's instance (or statically, as Kotlin 2.3 keeps them) and turned into text on a thread of its own, so a
 * toString() that throws or blocks costs that one entry, never the listing. The wire is written down in
 * gradle_repl/worker/link/agent_wire.py ({@code D}).
 */
final class SnippetValues {
    private static final int READ = 0;
    private static final int THREW = 1;
    private static final int UNFINISHED = 2;
    private static final int MISSING = 3;

    private SnippetValues() {}

    /**
     * Answers one describe request.
     *
     * @param instances the session's snippet instances by snippet class name
     * @param loader the context class loader the values' toString() runs with (every snippet's classes: SessionClasses)
     */
    static Wire.Out read(Wire.In request, Map<String, Object> instances, ClassLoader loader) throws IOException {
        long id = request.number();
        int limitChars = request.count();
        long valueMillis = request.number();
        long deadline = System.nanoTime() + request.number() * 1_000_000L;
        int count = request.count();
        Wire.Out reply = new Wire.Out('D').number(id).count(count);
        for (int i = 0; i < count; i++) {
            String snippetClass = request.text();
            String fieldName = request.text();
            String valueClass = request.text();
            Object instance = instances.get(snippetClass);
            if (instance == null) {
                reply.count(MISSING).text("no snippet " + snippetClass + " ran in this JVM").number(0);
                continue;
            }
            long left = Math.min(valueMillis, (deadline - System.nanoTime()) / 1_000_000L);
            if (left <= 0) {
                reply.count(UNFINISHED).text("").number(0);
                continue;
            }
            one(reply, instance, fieldName, valueClass, limitChars, left, loader);
        }
        return reply;
    }

    private static void one(Wire.Out reply, Object instance, String fieldName, String valueClass, int limitChars, long millis, ClassLoader loader) {
        Field field;
        try {
            field = instance.getClass().getDeclaredField(fieldName);
        } catch (NoSuchFieldException e) {
            reply.count(MISSING).text("no field " + fieldName + " in " + instance.getClass().getName()).number(0);
            return;
        }
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                field.setAccessible(true);
                Object value = field.get(Modifier.isStatic(field.getModifiers()) ? null : instance);
                // A value class's field holds its underlying value: boxed, it reads as the program shows it.
                outcome.set(ValueText.of(SnippetBody.boxed(value, valueClass, instance.getClass())));
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "gradle-repl-describe-" + fieldName);
        thread.setDaemon(true);
        thread.setContextClassLoader(loader);
        thread.start();
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Object read = outcome.get();
        if (read == null) {
            thread.interrupt();
            reply.count(UNFINISHED).text("").number(millis);
        } else if (read instanceof Throwable) {
            reply.count(THREW).text(read.getClass().getName()).number(0);
        } else {
            String text = (String) read;
            reply.count(READ).text(text.substring(0, Math.min(text.length(), limitChars))).number(text.length());
        }
    }
}
