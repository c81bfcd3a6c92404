package gradlerepl.agent;

/**
 * The agent wire's messages: the one table both sides are checked against. The agent's {@link Wire} checks every
 * message it writes or reads against it, and the worker reads this file (gradle_repl/worker/link/wire_table.py)
 * to check its own. Each row: the kind's letter, who sends it (agent or worker), and its fields in order.
 *
 * <p>A field is {@code name:type}: {@code long} (8 bytes), {@code int} (4 bytes), {@code text} (an int byte count,
 * -1 for null, then UTF-8) or {@code bytes} (an int byte count, -1 for none, then the bytes); {@code name:int*(...)}
 * is a count and then that many groups of the fields in parentheses. A {@code ?} after a type: may be null.
 * What the fields mean is written in agent_wire.py's docstring.
 */
final class WireTable {
    private WireTable() {}

    /** Who sends a message: the agent, or the worker (a letter may name one message each way). */
    static final String AGENT = "agent";
    static final String WORKER = "worker";

    /**
     * Before a TCP connection's first message (TokenGate): the agent's challenge line, this and a nonce; the worker's
     * line, AUTH_GREETING, its nonce and its proof; the agent's answer, one line of either of the last two (ok with the
     * agent's own proof; a refusal says why, then the connection closes). A Unix socket has none: its directory is
     * the gate.
     */
    static final String AUTH_CHALLENGE = "gradle-repl-agent";
    static final String AUTH_GREETING = "gradle-repl-token";
    static final String AUTH_OK = "ok";
    static final String AUTH_REFUSED = "refused:";

    static final String[][] MESSAGES = {
        {"H", "agent", "build:text loader:text java:text pid:long run:text uptime:long"},
        {"E", "worker", "id:long limit:int class:text field:text? type:text? classes:int*(name:text bytes:bytes)"},
        {"K", "worker", "id:long class:text classes:int*(name:text bytes:bytes)"},
        {"C", "worker", "id:long grace:long"},
        {"D", "worker", "id:long chars:int each:long all:long values:int*(class:text field:text valueclass:text?)"},
        {"R", "worker", "id:long jars:int*(name:text bytes:bytes)"},
        {"J", "worker", "id:long"},
        {"F", "worker", "id:long entry:int offset:long length:int"},
        {"B", "worker", "id:long nested:int classes:int*(name:text)"},
        {"A", "worker", "id:long count:int"},
        {"P", "worker", "id:long run:long limit:int expires:long probes:int*(index:int maxhits:int line:int lastline:int when:int captures:int nonames:int sites:int*(site:int class:text method:text locals:int*(name:text type:text) code:bytes? door:bytes?)) classes:int*(name:text version:int bytes:bytes)"},
        {"Q", "worker", "id:long run:long close:int"},
        {"O", "agent", "id:long stream:int text:text"},
        {"I", "agent", "id:long kind:text mime:text text:text? bytes:bytes?"},
        {"L", "agent", "id:long dropped:long"},
        {"V", "agent", "id:long text:text class:text? type:text"},
        {"M", "agent", "id:long kind:text mime:text text:text? bytes:bytes? class:text? type:text"},
        {"U", "agent", "id:long"},
        {"X", "agent", "id:long causes:int*(class:text message:text? frames:int*(class:text method:text file:text? line:int))"},
        {"S", "agent", "id:long note:text"},
        {"D", "agent", "id:long values:int*(state:int text:text number:long)"},
        {"R", "agent", "id:long state:int detail:text?"},
        {"J", "agent", "id:long entries:int*(path:text size:long digest:text?)"},
        {"F", "agent", "id:long bytes:bytes?"},
        {"B", "agent", "id:long classes:int*(name:text version:int bytes:bytes?)"},
        {"A", "agent", "id:long base:int"},
        {"P", "agent", "id:long failure:text?"},
        {"Q", "agent", "id:long hits:int*(probe:int hit:int thread:text frames:int*(class:text method:text file:text? line:int) locals:int*(name:text type:text text:text length:int error:text?) self:int*(text:text length:int error:text?) captured:int*(text:text length:int error:text? type:text?) when:text? nonames:int) counts:int*(hits:int active:int) notes:int*(note:text)"},
    };

    /** One field of a message's shape. */
    static final class Field {
        final String name;
        final String type;
        final boolean nullable;
        final java.util.List<Field> group; // the repeated fields after an int count, or null

        Field(String name, String type, boolean nullable, java.util.List<Field> group) {
            this.name = name;
            this.type = type;
            this.nullable = nullable;
            this.group = group;
        }
    }

    /** The fields of the message of {@code kind} that {@code sender} sends, or null when the table has none. */
    static java.util.List<Field> shape(char kind, String sender) {
        for (String[] row : MESSAGES) {
            if (row[0].charAt(0) == kind && row[1].equals(sender)) {
                int[] at = {0};
                return fields(row[2], at);
            }
        }
        return null;
    }

    private static java.util.List<Field> fields(String spec, int[] at) {
        java.util.List<Field> fields = new java.util.ArrayList<>();
        while (at[0] < spec.length() && spec.charAt(at[0]) != ')') {
            if (spec.charAt(at[0]) == ' ') {
                at[0]++;
                continue;
            }
            int colon = spec.indexOf(':', at[0]);
            String name = spec.substring(at[0], colon);
            int end = colon + 1;
            while (end < spec.length() && Character.isLetter(spec.charAt(end))) {
                end++;
            }
            String type = spec.substring(colon + 1, end);
            boolean nullable = end < spec.length() && spec.charAt(end) == '?';
            at[0] = nullable ? end + 1 : end;
            java.util.List<Field> group = null;
            if (spec.startsWith("*(", at[0])) {
                at[0] += 2;
                group = fields(spec, at);
                at[0]++; // ')'
            }
            fields.add(new Field(name, type, nullable, group));
        }
        return fields;
    }

    /** Walks one message's fields as they are written or read, refusing any the table doesn't have there. */
    static final class Check {
        private final char kind;
        private final java.util.ArrayDeque<int[]> positions = new java.util.ArrayDeque<>(); // {index, repeats left}
        private final java.util.ArrayDeque<java.util.List<Field>> levels = new java.util.ArrayDeque<>();

        Check(char kind, String sender) {
            this.kind = kind;
            java.util.List<Field> fields = shape(kind, sender);
            if (fields == null) {
                throw new IllegalStateException("the agent wire has no message " + kind + " sent by the " + sender + " (WireTable)");
            }
            levels.push(fields);
            positions.push(new int[] {0, 1});
        }

        /** The next field is of {@code type}; {@code count}, for an int, is how many groups follow when it counts some. */
        void next(String type, boolean isNull, long count) {
            Field field = advance();
            if (field == null || !field.type.equals(type) || (isNull && !field.nullable)) {
                String expected = field == null ? "its end" : field.name + ":" + field.type + (field.nullable ? "?" : "");
                throw new IllegalStateException("message " + kind + ": a " + (isNull ? "null " : "") + type + " where WireTable has " + expected);
            }
            if (field.group != null && count > 0) {
                levels.push(field.group);
                positions.push(new int[] {0, (int) count});
            }
        }

        /** Refuses a message that ends before its last field. */
        void end() {
            Field field = advance();
            if (field != null) {
                throw new IllegalStateException("message " + kind + " ends before its field " + field.name + " (WireTable)");
            }
        }

        private Field advance() {
            while (!positions.isEmpty()) {
                int[] position = positions.peek();
                java.util.List<Field> fields = levels.peek();
                if (position[0] < fields.size()) {
                    return fields.get(position[0]++);
                }
                if (--position[1] > 0) {
                    position[0] = 0;
                    continue;
                }
                positions.pop();
                levels.pop();
            }
            return null;
        }
    }
}
