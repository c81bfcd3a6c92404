package counter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints "ready" once started, then answers each line on stdin: `count` prints the counter and the names as the app
 * sees them, so a test sees a change a snippet made from the app's own side; `tick` adds one to the counter.
 */
public final class Main {
    /** The app's state: what an attached session reads and changes. */
    public static int counter = 1;
    public static final List<String> NAMES = new ArrayList<>(List.of("ada", "grace"));

    private Main() {}

    public static String report() {
        return "count=" + counter + " names=" + NAMES;
    }

    public static void main(String[] args) throws IOException {
        System.out.println("ready");
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in));
        for (String line = input.readLine(); line != null; line = input.readLine()) {
            switch (line.trim()) {
                case "count" -> System.out.println(report());
                case "tick" -> {
                    counter++;
                    System.out.println("ticked");
                }
                default -> { }
            }
        }
        // stdin closed: the test is done with the app; it keeps nothing running.
    }
}
