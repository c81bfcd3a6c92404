package gradlerepl.agent;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/**
 * gradle-repl's agent in a running application: snippets are compiled by a gradle-repl worker elsewhere and only
 * their classes come here, over a Unix domain socket whose directory only the user can enter (the worker makes it
 * 0700 and names it in the agent's argument; the agent checks). Each connection is one session ({@link AttachedSession}): its
 * own class loaders and snippet instances, released when the connection closes. Plain Java, no dependencies: the
 * agent must load into any JVM 17+ without touching the application's classpath.
 */
public final class AttachAgent {
    private static final Set<String> LISTENING = new HashSet<>();
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private AttachAgent() {}

    /** Loaded into a running JVM (VirtualMachine.loadAgent): the argument is the directory of its socket. */
    public static void agentmain(String directory, Instrumentation instrumentation) throws IOException {
        listen(directory, instrumentation);
    }

    /** Loaded at the JVM's start with -javaagent:jar=directory (`gradle-repl agent-path` prints the option). */
    public static void premain(String directory, Instrumentation instrumentation) throws IOException {
        listen(directory, instrumentation);
    }

    /**
     * Listens on {@code <directory>/<pid>.sock}; the directory must be its owner's alone (gradle-repl makes it so),
     * or anyone who can enter it could run code here. Loading the agent again (a second attach) changes nothing.
     */
    private static synchronized void listen(String directory, Instrumentation instrumentation) throws IOException {
        if (directory == null || directory.isEmpty()) {
            throw new IllegalArgumentException("gradle-repl's agent needs the directory of its socket as its argument");
        }
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
                        new ChannelStreams.In(channel), new ChannelStreams.Out(channel), channel, AppLoader.find(instrumentation),
                        instrumentation);
                Thread reader = new Thread(session::serve, "gradle-repl-session");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return;
            }
        }
    }
}
