package gradlerepl.agent;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * gradle-repl's agent in a running application: snippets are compiled by a gradle-repl worker elsewhere and only
 * their classes come here, over a Unix domain socket whose directory only the user can enter (the worker makes it
 * 0700 and names the socket in the agent's argument). Each connection is one session ({@link AttachedSession}): its
 * own class loaders and snippet instances, released when the connection closes. Plain Java, no dependencies: the
 * agent must load into any JVM 17+ without touching the application's classpath.
 */
public final class AttachAgent {
    private static final Set<String> LISTENING = new HashSet<>();

    private AttachAgent() {}

    /** Loaded into a running JVM (VirtualMachine.loadAgent): the argument is the socket's path. */
    public static void agentmain(String socketPath, Instrumentation instrumentation) throws IOException {
        listen(socketPath, instrumentation);
    }

    /** Loaded at the JVM's start with -javaagent:jar=socketPath. */
    public static void premain(String socketPath, Instrumentation instrumentation) throws IOException {
        listen(socketPath, instrumentation);
    }

    /** Loading the agent again with the same socket (a second attach) finds it listening and changes nothing. */
    private static synchronized void listen(String socketPath, Instrumentation instrumentation) throws IOException {
        if (socketPath == null || socketPath.isEmpty()) {
            throw new IllegalArgumentException("gradle-repl's agent needs the path of its socket as its argument");
        }
        if (!LISTENING.add(socketPath)) {
            return;
        }
        Path path = Path.of(socketPath);
        // A socket file left by an earlier JVM with this pid: nobody listens on it any more.
        Files.deleteIfExists(path);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        SnippetOutput.install();
        Thread acceptor = new Thread(() -> accept(server, instrumentation), "gradle-repl-agent");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void accept(ServerSocketChannel server, Instrumentation instrumentation) {
        while (server.isOpen()) {
            try {
                SocketChannel channel = server.accept();
                // Found for each session, not once: an agent loaded with -javaagent starts before the main class loads.
                AttachedSession session = new AttachedSession(
                        new ChannelStreams.In(channel), new ChannelStreams.Out(channel), channel, AppLoader.find(instrumentation));
                Thread reader = new Thread(session::serve, "gradle-repl-session");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return;
            }
        }
    }
}
