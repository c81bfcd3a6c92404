package gradlerepl.agent;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;

/**
 * gradle-repl's agent in a running application: snippets are compiled by a gradle-repl worker elsewhere and only
 * their classes come here. Each connection is one session ({@link AttachedSession}): its own class loaders and
 * snippet instances, released when the connection closes. Plain Java, no dependencies: the agent must load into any
 * JVM 17+ without touching the application's classpath.
 *
 * <p>It listens one of two ways, by its argument ({@link AgentOptions}): a directory — a Unix domain socket there,
 * {@code <pid>.sock}, whose directory only the user can enter (the worker makes it 0700 and the agent checks), as a
 * worker on this machine loads it; or {@code listen=[HOST:]PORT} — TCP, loopback unless a host is named, where every
 * connection must first give the token ({@link TokenGate}), as an app in a container, on another host or in a pod is
 * reached.
 */
public final class AttachAgent {
    /**
     * This run of the JVM, as its hello names it: a worker that attaches again tells the same run (the app's state as it
     * was) from a restarted one. Random, so it says nothing of the host or the clock.
     */
    static final String RUN = UUID.randomUUID().toString();

    private static final Set<String> LISTENING = new HashSet<>();
    /** Connections proving their token at once; past this, a new one is closed unanswered (a flood, not a worker). */
    private static final Semaphore PROVING = new Semaphore(16);
    private static final long ACCEPT_RETRY_MILLIS = 100;
    /** A silent peer is probed after this, every interval, and given up after that many probes: about 30 s. */
    private static final int KEEPALIVE_IDLE_SECONDS = 15;
    private static final int KEEPALIVE_INTERVAL_SECONDS = 5;
    private static final int KEEPALIVE_PROBES = 3;
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private AttachAgent() {}

    /** Loaded into a running JVM (VirtualMachine.loadAgent): the argument is the directory of its socket. */
    public static void agentmain(String argument, Instrumentation instrumentation) throws IOException {
        listen(argument, instrumentation);
    }

    /**
     * Loaded at the JVM's start with -javaagent:jar=ARGUMENT (`gradle-repl agent-path` prints the option). An argument
     * it can't use stops the JVM's start with the reason, as a JDWP option would: the developer named this agent.
     */
    public static void premain(String argument, Instrumentation instrumentation) throws IOException {
        listen(argument, instrumentation);
    }

    /** How long this JVM has run, in ms by its own clock (-1 when the OS doesn't say): a hello's uptime. */
    static long uptimeMillis() {
        return ProcessHandle.current().info().startInstant()
                .map(start -> Duration.between(start, Instant.now()).toMillis())
                .orElse(-1L);
    }

    private static synchronized void listen(String argument, Instrumentation instrumentation) throws IOException {
        AgentOptions options = AgentOptions.parse(argument);
        if (options.directory != null) {
            listenInDirectory(options.directory, instrumentation);
        } else {
            listenOnPort(options, instrumentation);
        }
    }

    /**
     * Listens on {@code <directory>/<pid>.sock}; the directory must be its owner's alone (gradle-repl makes it so),
     * or anyone who can enter it could run code here. Loading the agent again (a second attach) changes nothing.
     */
    private static void listenInDirectory(String directory, Instrumentation instrumentation) throws IOException {
        Path dir = Path.of(directory);
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || !OWNER_ONLY.containsAll(permissions)) {
            throw new IllegalArgumentException("gradle-repl's agent refuses " + dir + ": its socket directory must be accessible to its owner only (0700)");
        }
        Path path = dir.resolve(ProcessHandle.current().pid() + ".sock");
        if (!LISTENING.add(path.toString())) {
            return;
        }
        // A socket file left by an earlier JVM with this pid: nobody listens on it any more.
        Files.deleteIfExists(path);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        start(server, instrumentation, null);
    }

    /** Listens on TCP at the options' host (loopback unless named) and port, behind their token. */
    private static void listenOnPort(AgentOptions options, Instrumentation instrumentation) throws IOException {
        String key = "tcp:" + options.host + ":" + options.port;
        if (!LISTENING.add(key)) {
            return;
        }
        InetSocketAddress address = options.host == null
                ? new InetSocketAddress(InetAddress.getLoopbackAddress(), options.port)
                : options.host.equals("*") ? new InetSocketAddress(options.port) : new InetSocketAddress(options.host, options.port);
        if (address.isUnresolved()) {
            LISTENING.remove(key);
            throw new IllegalArgumentException("gradle-repl's agent can't listen on " + options.host + ": no such host here");
        }
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        try {
            server.bind(address);
        } catch (IOException e) {
            // Said, not thrown: JAVA_TOOL_OPTIONS hands the option to every JVM started there (a jcmd, a build's own
            // JVM), and the one that finds the port taken must still start. A bad token, by contrast, stops the start.
            LISTENING.remove(key);
            server.close();
            System.err.println("gradle-repl's agent can't listen on " + address + " (" + e.getMessage()
                    + "): this JVM runs without it; another JVM may hold the port (JAVA_TOOL_OPTIONS reaches every JVM)");
            return;
        }
        // The app's own console says where it listens (never the token): what a developer looks for, as JDWP's line.
        System.err.println("gradle-repl's agent listens on " + server.getLocalAddress() + " (a token is required)");
        start(server, instrumentation, new TokenGate(options.token));
    }

    private static void start(ServerSocketChannel server, Instrumentation instrumentation, TokenGate gate) {
        SnippetOutput.install();
        Thread acceptor = new Thread(() -> accept(server, instrumentation, gate), "gradle-repl-agent");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void accept(ServerSocketChannel server, Instrumentation instrumentation, TokenGate gate) {
        while (server.isOpen()) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                if (!server.isOpen()) {
                    return;
                }
                // Out of files for a moment, say: the port stays bound, so keep serving it.
                pause(ACCEPT_RETRY_MILLIS);
                continue;
            }
            if (gate != null && !PROVING.tryAcquire()) {
                // More connections than this proving their token at once: a flood, not a worker. Closed unanswered.
                quietlyClose(channel);
                continue;
            }
            Thread reader = new Thread(() -> serve(channel, instrumentation, gate), "gradle-repl-session");
            reader.setDaemon(true);
            reader.start();
        }
    }

    /**
     * One connection: past the gate (TCP; its PROVING permit held until then), a session; its thread reads the
     * worker's requests until it closes.
     */
    private static void serve(SocketChannel channel, Instrumentation instrumentation, TokenGate gate) {
        try {
            if (gate != null) {
                boolean admitted;
                try {
                    // Small frames both ways: Nagle's wait would add its delay to every reply. Keep-alive, probing
                    // after KEEPALIVE_IDLE_SECONDS, finds a peer that vanished (a cut port-forward, a host gone) and
                    // ends its session rather than keeping it (its snippet, its probes) for the OS's two hours.
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                    keepAliveSoon(channel);
                    admitted = gate.admit(channel);
                } finally {
                    PROVING.release();
                }
                if (!admitted) {
                    channel.close();
                    return;
                }
            }
            // Found for each session, not once: an agent loaded with -javaagent starts before the main class loads.
            new AttachedSession(
                    new ChannelStreams.In(channel), new ChannelStreams.Out(channel), channel, AppLoader.find(instrumentation),
                    instrumentation).serve();
        } catch (IOException e) {
            quietlyClose(channel);
        }
    }

    /** TCP keep-alive's timings, where the JDK has them (jdk.net; not in every trimmed runtime): probe soon. */
    private static void keepAliveSoon(SocketChannel channel) {
        try {
            channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS);
            channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, KEEPALIVE_INTERVAL_SECONDS);
            channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_PROBES);
        } catch (IOException | UnsupportedOperationException | LinkageError e) {
            // the OS's own timings, then
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void quietlyClose(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closed by its peer already
        }
    }
}
