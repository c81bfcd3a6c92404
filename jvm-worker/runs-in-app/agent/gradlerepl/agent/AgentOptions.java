package gradlerepl.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The agent's argument, as {@code -javaagent:JAR=ARGUMENT} or a worker's dynamic load gives it: a directory (the Unix
 * socket's, a worker on this machine), or comma-separated {@code key=value}s for TCP — {@code listen=[HOST:]PORT}
 * ({@code *} for every interface, an IPv6 host in brackets, port 0 for any free one: the app's console says which),
 * and the token as {@code token=…}, {@code tokenFile=PATH} or, with neither, the {@link #TOKEN_ENV} variable.
 * Python reads the two constants below from this file (worker/link/agent_options.py): written once.
 */
final class AgentOptions {
    /** The variable a token is taken from when the argument names none (the worker side reads it too). */
    static final String TOKEN_ENV = "GRADLE_REPL_AGENT_TOKEN";
    /** 128 bits in URL-safe base64; a shorter token could be guessed: refused, whoever gives it. */
    static final int MIN_TOKEN_CHARS = 22;

    final String directory;
    final String host; // null: loopback
    final int port;
    final byte[] token;

    private AgentOptions(String directory, String host, int port, byte[] token) {
        this.directory = directory;
        this.host = host;
        this.port = port;
        this.token = token;
    }

    static AgentOptions parse(String argument) throws IOException {
        if (argument == null || argument.isBlank()) {
            throw new IllegalArgumentException(
                    "gradle-repl's agent needs an argument: listen=[HOST:]PORT with a token (`gradle-repl agent-path --listen PORT` prints the option), or the directory of its socket");
        }
        if (!argument.contains("=")) {
            return new AgentOptions(argument, null, -1, null);
        }
        String listen = null;
        String token = null;
        String tokenFile = null;
        for (String option : argument.split(",")) {
            int equals = option.indexOf('=');
            String key = equals < 0 ? "" : option.substring(0, equals).trim();
            String value = equals < 0 ? "" : option.substring(equals + 1).trim();
            switch (key) {
                case "listen" -> listen = value;
                case "token" -> token = value;
                case "tokenFile" -> tokenFile = value;
                // Never the option's text: it may be a token put in the wrong place, and this goes to the app's console.
                default -> throw new IllegalArgumentException("gradle-repl's agent has no option "
                        + (key.matches("[A-Za-z]+") ? "'" + key + "'" : "of that form")
                        + ": it takes listen=[HOST:]PORT and token=TOKEN or tokenFile=PATH, separated by commas");
            }
        }
        if (listen == null || listen.isEmpty()) {
            throw new IllegalArgumentException("gradle-repl's agent needs listen=[HOST:]PORT beside its token");
        }
        int colon = listen.lastIndexOf(':');
        String host = colon < 0 ? null : listen.substring(0, colon);
        if (host != null && host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535 || (host != null && host.isEmpty())) {
            throw new IllegalArgumentException("gradle-repl's agent can't read its listen= option: give [HOST:]PORT, e.g. 5006 or 0.0.0.0:5006");
        }
        return new AgentOptions(null, host, port, token(token, tokenFile));
    }

    private static byte[] token(String given, String file) throws IOException {
        String token;
        String from;
        if (given != null) {
            token = given;
            from = "token=";
        } else if (file != null) {
            try {
                token = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
            } catch (IOException e) {
                throw new IOException("gradle-repl's agent can't read its token file " + file + ": " + e.getMessage(), e);
            }
            from = "tokenFile " + file;
        } else {
            token = System.getenv(TOKEN_ENV);
            from = TOKEN_ENV;
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("gradle-repl's agent listens only behind a token: give token=…, tokenFile=PATH or set "
                        + TOKEN_ENV + " (`gradle-repl agent-path --listen PORT` makes one)");
            }
            token = token.trim();
        }
        if (token.length() < MIN_TOKEN_CHARS) {
            throw new IllegalArgumentException("gradle-repl's agent refuses the token of " + from + ": it has " + token.length()
                    + " characters, fewer than " + MIN_TOKEN_CHARS + " (`gradle-repl agent-path --listen PORT` makes one)");
        }
        return token.getBytes(StandardCharsets.UTF_8);
    }
}
