package gradlerepl.agent;

import gradlerepl.both.SnippetBody;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One attached session: the snippets' class loaders and instances, evaluated the way the K2 REPL's evaluator does
 * ({@code K2ReplEvaluator.evalSnippet}: the snippet class's {@code INSTANCE}, its body method, then its result field,
 * or on Kotlin 2.2 the method's return value), by the rule the worker's own JVM follows too ({@link SnippetBody}: a
 * mangled body, a value-class value boxed). Everything is released when the worker's connection closes: the loaders
 * and instances are reachable from nothing else.
 *
 * <p>An app without Kotlin gets the Kotlin runtime its snippets were compiled for from the worker ({@code R}: the
 * jars' bytes, over the connection), in a loader of this session's between the app's loader and the snippets' classes
 * ({@link RuntimeLoader}, the parent of {@link SessionClasses}): the app's own loaders never see it. An app that has
 * its own Kotlin keeps it. A worker elsewhere reads the app's class path over the connection too ({@code J},
 * {@code F}: {@link AppClassPath}).
 */
final class AttachedSession {
    /** A class every Kotlin program links to: whether the app has a Kotlin runtime of its own. */
    private static final String KOTLIN_PROBE = "kotlin.Unit";
    private static final int RUNTIME_LOADED = 0;
    private static final int RUNTIME_APP_HAS_KOTLIN = 1;
    private static final int RUNTIME_FAILED = 2;

    private final InputStream in;
    private final OutputStream out;
    private final Closeable connection;
    private final ClassLoader appLoader;
    /** Every snippet's classes so far, above the application's: the parent of the next snippet's loader. */
    private SessionClasses snippets;
    /** The Kotlin runtime this session brought to an app without one, or null. */
    private RuntimeLoader runtime;
    /** The app's class path as this session listed it for its worker. */
    private final AppClassPath classPath = new AppClassPath();
    /**
     * The snippets' instances by snippet class: the session's state, alive as long as the session, and where a describe
     * reads the values of the snippets' vals and vars.
     */
    private final Map<String, Object> instancesByClass = new HashMap<>();
    private volatile Running running;
    /** The probes this session set in the application; taken out when it ends. */
    private final SessionProbes probes;
    /**
     * Sends every message, in the order handed to it, so no snippet thread ever writes to the socket: an interrupted
     * thread's write would close the channel (it is interruptible), and a snippet's thread is interrupted on its
     * cancel. Its scheduler also runs the snippets' output flushes ({@link SnippetSink#FLUSH_MILLIS}).
     */
    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "gradle-repl-session-writer");
        thread.setDaemon(true);
        return thread;
    });

    AttachedSession(InputStream in, OutputStream out, Closeable connection, ClassLoader appLoader, Instrumentation instrumentation) {
        this.probes = new SessionProbes(instrumentation, appLoader);
        this.in = in;
        this.out = out;
        this.connection = connection;
        this.appLoader = appLoader;
        this.snippets = new SessionClasses(appLoader);
    }

    /** A snippet on its own thread; its reply is sent once, by whoever finishes it first. */
    private static final class Running {
        final long id;
        final Thread thread;
        final SnippetSink output;
        boolean answered;

        Running(long id, Thread thread, SnippetSink output) {
            this.id = id;
            this.thread = thread;
            this.output = output;
        }
    }

    void serve() {
        try {
            // First, which build this is: its package is named by its content (agent_jar.py), so a worker of
            // another build, or one that reached an older agent's socket, can tell and refuse it.
            new Wire.Out('H')
                    .text(AttachedSession.class.getPackageName())
                    .text(appLoader.toString())
                    .text(System.getProperty("java.version"))
                    .number(ProcessHandle.current().pid())
                    .text(AttachAgent.RUN)
                    .number(AttachAgent.uptimeMillis())
                    .complete()
                    .sendTo(out);
            for (Wire.In message = Wire.read(in); message != null; message = Wire.read(in)) {
                byte kind = message.kind();
                if (kind == 'E') {
                    start(message);
                } else if (kind == 'K') {
                    keep(message);
                } else if (kind == 'C') {
                    cancel(message.number(), message.number());
                } else if (kind == 'D') {
                    describe(message);
                } else if (kind == 'R') {
                    send(runtime(message));
                } else if (kind == 'J') {
                    send(classPath.list(message.number()));
                } else if (kind == 'F') {
                    send(classPath.piece(message.number(), message.count(), message.number(), message.count()));
                } else if (kind == 'B') {
                    send(probes.read(message));
                } else if (kind == 'A') {
                    send(SessionProbes.reserve(message));
                } else if (kind == 'P') {
                    send(probes.set(message));
                } else if (kind == 'Q') {
                    send(probes.collect(message));
                }
                message.end(); // each request read whole, as WireTable has it
            }
        } catch (IOException e) {
            // The worker is gone: the session ends with it.
        } catch (RuntimeException | Error e) {
            // A fault of the agent's own: the application's console is the only place left to say so.
            System.err.println("gradle-repl's agent ended a session: " + e);
            e.printStackTrace();
        } finally {
            Running last = running;
            if (last != null) {
                last.thread.interrupt();
            }
            try {
                probes.closeAll(); // the app's classes back to their own bytes
            } catch (RuntimeException | Error e) {
                System.err.println("gradle-repl's agent could not take a session's probes out: " + e);
            }
            writer.shutdown();
            synchronized (this) {
                instancesByClass.clear();
                snippets = new SessionClasses(appLoader);
                runtime = null;
            }
            try {
                connection.close();
            } catch (IOException ignored) {
                // closing a socket the peer already closed
            }
        }
    }

    private void start(Wire.In message) throws IOException {
        long id = message.number();
        int outputLimit = message.count();
        String className = message.text();
        String resultField = message.text();
        String resultType = message.text();
        SnippetLoader loader = snippetLoader(className, classes(message));
        SnippetSink output = new SnippetSink(id, outputLimit, SnippetOutput.charset(), this::send, writer);
        Running[] self = new Running[1];
        Thread thread = new Thread(() -> {
            SnippetOutput.begin(output);
            Wire.Out reply;
            try {
                reply = evaluate(id, loader, className, resultField, resultType);
            } catch (Throwable t) {
                reply = error(id, t);
            } finally {
                SnippetOutput.end();
            }
            answer(self[0], reply);
        }, "gradle-repl-snippet-" + className);
        thread.setDaemon(true);
        thread.setContextClassLoader(loader);
        self[0] = new Running(id, thread, output);
        running = self[0];
        thread.start();
    }

    /**
     * A loader for a snippet's classes, which later snippets resolve through whatever its run comes to (the worker's
     * REPL compiles them against its declarations from now on).
     */
    private synchronized SnippetLoader snippetLoader(String className, Map<String, byte[]> classes) {
        SnippetLoader loader = new SnippetLoader(className, classes, snippets);
        snippets.add(loader);
        return loader;
    }

    /** A snippet's classes: a count, then each class's binary name and bytes. */
    private static Map<String, byte[]> classes(Wire.In message) throws IOException {
        int count = message.count();
        Map<String, byte[]> classes = new HashMap<>();
        for (int i = 0; i < count; i++) {
            classes.put(message.text(), message.bytes());
        }
        return classes;
    }

    /**
     * A snippet stopped while it compiled: it never runs, but the worker's REPL keeps it in its history, so later
     * snippets may name its classes and declarations. Its classes join the session's as a run's do; nothing of it is
     * initialised and it has no instance, as in a session of gradle-repl's own JVM. No reply: the next message is
     * read only after this one.
     */
    private void keep(Wire.In message) throws IOException {
        message.number(); // the id of the stopped run: nothing answers it
        String className = message.text();
        Map<String, byte[]> classes = classes(message);
        snippetLoader(className, classes);
    }

    /**
     * The Kotlin runtime for snippets in an app without one: the jars' bytes, defined in a loader of this session's,
     * the parent of the session's snippet classes (it comes before the first snippet). Answered with whether they were
     * used.
     */
    private Wire.Out runtime(Wire.In message) throws IOException {
        long id = message.number();
        int count = message.count();
        List<byte[]> jars = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            message.text(); // the jar's name, for the worker's messages
            jars.add(message.bytes());
        }
        try {
            Class.forName(KOTLIN_PROBE, false, appLoader);
            // Never replace the app's own Kotlin: its classes are what the app's objects were made with.
            return new Wire.Out('R').number(id).count(RUNTIME_APP_HAS_KOTLIN).text(null);
        } catch (ClassNotFoundException | LinkageError e) {
            // no Kotlin of its own: the snippets get the worker's
        }
        synchronized (this) {
            if (runtime == null) {
                try {
                    runtime = new RuntimeLoader(jars, appLoader);
                } catch (IOException e) {
                    return new Wire.Out('R').number(id).count(RUNTIME_FAILED).text("its jars don't read: " + e.getMessage());
                }
                snippets = snippets.over(runtime);
            }
        }
        return new Wire.Out('R').number(id).count(RUNTIME_LOADED).text(null);
    }

    private Wire.Out evaluate(long id, SnippetLoader loader, String className, String resultField, String resultType) throws Throwable {
        Class<?> snippetClass = Class.forName(className, true, loader);
        Method eval = SnippetBody.method(snippetClass);
        if (eval == null) {
            throw new IllegalStateException(className + " has no " + SnippetBody.EVAL + " method");
        }
        Object instance = snippetClass.getField("INSTANCE").get(null);
        synchronized (this) {
            instancesByClass.put(className, instance);
        }
        Object returned;
        try {
            returned = eval.invoke(instance);
        } catch (InvocationTargetException e) {
            return error(id, e.getTargetException());
        }
        Object value;
        if (resultField != null) {
            Field field = snippetClass.getDeclaredField(resultField);
            field.setAccessible(true);
            value = field.get(instance);
        } else if (eval.getReturnType() == void.class) {
            return new Wire.Out('U').number(id);
        } else {
            value = returned;
        }
        // A value class's value arrives as its underlying one (a Duration's long): boxed, it reads as the program shows it.
        String valueClass = resultType != null ? resultType : SnippetBody.mangledValueType(eval, loader.classFile(className));
        value = SnippetBody.boxed(value, valueClass, snippetClass);
        String runtimeClass = value == null ? null : value.getClass().getName();
        String returnType = valueClass != null ? valueClass : eval.getGenericReturnType().getTypeName();
        Rendering.Item shown = Rendering.of(value);
        if (shown.isImage()) {
            // An image value, as a session of its own shows one.
            return shown.message(new Wire.Out('M').number(id)).text(runtimeClass).text(returnType);
        }
        return new Wire.Out('V').number(id).text(shown.text).text(runtimeClass).text(returnType);
    }

    /** Reads the values a describe asks for (between snippets) and sends them, as every reply, from the writer. */
    private void describe(Wire.In message) throws IOException {
        Map<String, Object> byClass;
        ClassLoader loader;
        synchronized (this) {
            byClass = new HashMap<>(instancesByClass);
            loader = snippets;
        }
        send(SnippetValues.read(message, byClass, loader));
    }

    private static Wire.Out error(long id, Throwable thrown) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = thrown; t != null && chain.size() < 20 && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        Wire.Out reply = new Wire.Out('X').number(id).count(chain.size());
        for (Throwable t : chain) {
            StackTraceElement[] frames = t.getStackTrace();
            reply.text(t.getClass().getName()).text(t.getMessage()).count(frames.length);
            for (StackTraceElement frame : frames) {
                reply.text(frame.getClassName()).text(frame.getMethodName()).text(frame.getFileName()).count(frame.getLineNumber());
            }
        }
        return reply;
    }

    /**
     * Interrupts the snippet's thread and waits the worker's grace for it to end; one that ignores interrupts is stopped where the JDK still can (17 to 19) and
     * otherwise keeps running in the application, which the reply says. The application's threads are not touched.
     */
    @SuppressWarnings("removal")
    private void cancel(long id, long graceMillis) {
        Running current = running;
        if (current == null || current.id != id) {
            return;
        }
        current.thread.interrupt();
        try {
            current.thread.join(graceMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (!current.thread.isAlive()) {
            return;
        }
        String note;
        try {
            current.thread.stop();
            note = "stopped";
        } catch (UnsupportedOperationException e) {
            note = "left running: Java " + Runtime.version().feature() + " cannot stop a thread, so it runs on in the app until it ends";
        }
        answer(current, new Wire.Out('S').number(id).text(note));
    }

    /**
     * Sends a snippet's one reply, after the rest of what it printed and how much its limit cut: the first of its
     * end or its cancel to get here.
     */
    private void answer(Running snippet, Wire.Out reply) {
        synchronized (snippet) {
            if (snippet.answered) {
                return;
            }
            snippet.answered = true;
        }
        synchronized (snippet.output) {
            // Under the sink's lock, so nothing the snippet prints meanwhile goes between its last output and its reply.
            snippet.output.end();
            send(reply);
        }
    }

    /** Queues a message for the writer thread; a session whose writer has shut down has no worker to send it to. */
    private void send(Wire.Out message) {
        message.complete(); // on the thread that made it: a message short of a field is a fault of the agent's own
        try {
            writer.execute(() -> {
                try {
                    message.sendTo(out);
                } catch (IOException e) {
                    // The worker is gone; serve() ends the session.
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // serve() has ended the session: its worker is gone.
        }
    }
}
