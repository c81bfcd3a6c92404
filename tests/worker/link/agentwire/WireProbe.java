package gradlerepl.agent;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The agent's side of tests/jvm/test_agent_wire_table.py, compiled beside the agent's sources: {@code write} writes one
 * message of every kind the agent sends, each field a sample of its type, through the agent's own Wire (which checks
 * it against WireTable); {@code read} reads the worker's messages from stdin through the agent's Wire, every field
 * the table has and no more, and prints each one's kind.
 */
public final class WireProbe {
    private WireProbe() {}

    public static void main(String[] args) throws IOException {
        if (args[0].equals("write")) {
            OutputStream out = new BufferedOutputStream(System.out);
            for (String[] row : WireTable.MESSAGES) {
                if (row[1].equals(WireTable.AGENT)) {
                    Wire.Out message = new Wire.Out(row[0].charAt(0));
                    fill(message, WireTable.shape(row[0].charAt(0), WireTable.AGENT));
                    message.complete().sendTo(out);
                }
            }
            out.flush();
            return;
        }
        StringBuilder kinds = new StringBuilder();
        for (Wire.In message = Wire.read(System.in); message != null; message = Wire.read(System.in)) {
            char kind = (char) message.kind();
            read(message, WireTable.shape(kind, WireTable.WORKER));
            message.end();
            kinds.append(kind);
        }
        System.out.println(kinds);
    }

    /** Samples: 1 for a number, 2 groups for a count, "é-<name>" for a text, null where the table allows it. */
    private static void fill(Wire.Out message, List<WireTable.Field> fields) {
        for (WireTable.Field field : fields) {
            switch (field.type) {
                case "long": message.number(1); break;
                case "int":
                    message.count(field.group != null ? 2 : 1);
                    if (field.group != null) {
                        fill(message, field.group);
                        fill(message, field.group);
                    }
                    break;
                case "text": message.text(field.nullable ? null : "é-" + field.name); break;
                default: message.bytes(field.nullable ? null : new byte[] {1, 2, 3});
            }
        }
    }

    private static void read(Wire.In message, List<WireTable.Field> fields) throws IOException {
        for (WireTable.Field field : fields) {
            switch (field.type) {
                case "long": message.number(); break;
                case "int":
                    int count = message.count();
                    for (int i = 0; field.group != null && i < count; i++) {
                        read(message, field.group);
                    }
                    break;
                case "text": message.text(); break;
                default: message.bytes();
            }
        }
    }
}
