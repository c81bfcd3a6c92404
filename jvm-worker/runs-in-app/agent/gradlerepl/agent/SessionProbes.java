package gradlerepl.agent;

import gradlerepl.both.ProbeRun;
import gradlerepl.both.ProbeValues;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One session's probes in the application (the wire's {@code B}, {@code A}, {@code P} and {@code Q}): each set of
 * probes the worker sets — a call's, or one that outlives calls — runs as a {@link ProbeRun}, the code the worker's
 * own JVM runs for its probes, with the bytes the worker made. They are all taken out when the session ends.
 */
final class SessionProbes {
    private final Instrumentation instrumentation;
    private final ClassLoader appLoader;
    private final Map<Long, ProbeRun> runs = new HashMap<>();

    SessionProbes(Instrumentation instrumentation, ClassLoader appLoader) {
        this.instrumentation = instrumentation;
        this.appLoader = appLoader;
    }

    private ProbeClasses classes() {
        return ProbeClasses.of(instrumentation);
    }

    /** {@code B}: the bytes of the classes named, as a probe is put into them. */
    Wire.Out read(Wire.In message) throws IOException {
        long id = message.number();
        boolean nested = message.count() != 0;
        int count = message.count();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add(message.text());
        }
        List<ProbeClasses.Read> reads;
        try {
            reads = classes().read(names, nested, appLoader);
        } catch (Throwable thrown) {
            // Each class named, without bytes: the worker says it couldn't read them.
            reads = new ArrayList<>();
            for (String name : names) {
                reads.add(new ProbeClasses.Read(name, -1, null));
            }
        }
        Wire.Out reply = new Wire.Out('B').number(id).count(reads.size());
        for (ProbeClasses.Read read : reads) {
            reply.text(read.name).count(read.version).bytes(read.bytes);
        }
        return reply;
    }

    /** {@code A}: the first of as many site ids as asked for. */
    static Wire.Out reserve(Wire.In message) throws IOException {
        long id = message.number();
        return new Wire.Out('A').number(id).count(ProbeClasses.reserveSites(message.count()));
    }

    /** {@code P}: a set of probes, its sites and the classes' instrumented bytes; answered with null or why not. */
    Wire.Out set(Wire.In message) throws IOException {
        long id = message.number();
        long runId = message.number();
        int limit = message.count();
        long expiresMillis = message.number();
        ProbeClasses classes = classes();
        // A probe past its maxHits records nothing more at once; a call's stays in its classes until the call's Q
        // takes the set out, so the snippet's own code is never retransformed under it (a running frame would lose
        // its line numbers); a probe that outlives calls (it expires) is taken out now.
        ProbeRun run = new ProbeRun(limit, expiresMillis > 0 ? classes::restoreLater : names -> { });
        int probes = message.count();
        for (int p = 0; p < probes; p++) {
            ProbeRun.Probe probe = run.addProbe(message.count(), message.count(), message.count(), message.count(),
                    message.count() != 0, message.count(), message.count() != 0);
            int sites = message.count();
            for (int s = 0; s < sites; s++) {
                int site = message.count();
                String className = message.text();
                String method = message.text();
                int locals = message.count();
                String[] names = new String[locals];
                String[] types = new String[locals];
                for (int l = 0; l < locals; l++) {
                    names[l] = message.text();
                    types[l] = message.text();
                }
                run.addSite(probe, site, className, method, names, types, message.bytes(), message.bytes(), null);
            }
        }
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        Map<String, Integer> versions = new HashMap<>();
        int count = message.count();
        for (int i = 0; i < count; i++) {
            String name = message.text();
            versions.put(name, message.count());
            bytes.put(name, message.bytes());
        }
        if (expiresMillis > 0) {
            run.expireIn(expiresMillis / 1000.0);
        }
        run.arm();
        String failure = classes.install(bytes, versions);
        if (failure != null) {
            run.disarm();
            classes.restore(run.classNames());
        } else {
            synchronized (this) {
                runs.put(runId, run);
            }
        }
        return new Wire.Out('P').number(id).text(failure);
    }

    /** {@code Q}: a set's hits and notes since the last read, its probes' counts; with close, taken out first. */
    Wire.Out collect(Wire.In message) throws IOException {
        long id = message.number();
        long runId = message.number();
        boolean close = message.count() != 0;
        ProbeRun run;
        synchronized (this) {
            run = close ? runs.remove(runId) : runs.get(runId);
        }
        if (run == null) {
            return new Wire.Out('Q').number(id).count(0).count(0).count(1).text("no probes " + runId + " in this app");
        }
        if (close && run.disarm()) {
            classes().restore(run.classNames());
        }
        ProbeRun.HitRecord[] hits = run.drainHits();
        Wire.Out reply = new Wire.Out('Q').number(id).count(hits.length);
        for (ProbeRun.HitRecord hit : hits) {
            reply.count(hit.probe).count(hit.hit).text(hit.thread).count(hit.stack.length);
            for (StackTraceElement frame : hit.stack) {
                reply.text(frame.getClassName()).text(frame.getMethodName()).text(frame.getFileName()).count(frame.getLineNumber());
            }
            reply.count(hit.localNames.length);
            for (int i = 0; i < hit.localNames.length; i++) {
                text(reply.text(hit.localNames[i]).text(hit.localTypes[i]), hit.localValues[i]);
            }
            reply.count(hit.self == null ? 0 : 1);
            if (hit.self != null) {
                text(reply, hit.self);
            }
            reply.count(hit.captured.length);
            for (int i = 0; i < hit.captured.length; i++) {
                text(reply, hit.captured[i]).text(hit.capturedTypes[i]);
            }
            reply.text(hit.whenError).count(hit.noLocalNames ? 1 : 0);
        }
        int[] counts = run.hitCounts();
        boolean[] active = run.activity();
        reply.count(counts.length);
        for (int i = 0; i < counts.length; i++) {
            reply.count(counts[i]).count(active[i] ? 1 : 0);
        }
        String[] notes = run.drainNotes();
        reply.count(notes.length);
        for (String note : notes) {
            reply.text(note);
        }
        return reply;
    }

    /** Every probe of the session taken out: the session ended. */
    void closeAll() {
        List<ProbeRun> all;
        synchronized (this) {
            all = new ArrayList<>(runs.values());
            runs.clear();
        }
        for (ProbeRun run : all) {
            if (run.disarm()) {
                classes().restore(run.classNames());
            }
        }
    }

    private static Wire.Out text(Wire.Out out, ProbeValues.Text text) {
        return out.text(text.text).count(text.length).text(text.error);
    }
}
