package hello;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;

/** The app's state: its greeting, and how many requests it answered. */
@Service
public class Greeter {
    private volatile String greeting = "Hello";
    private final AtomicInteger visits = new AtomicInteger();
    /** What every greeting ends with: a static, the same for the whole app. */
    public static volatile String suffix = "";

    public String getGreeting() {
        return greeting;
    }

    public void setGreeting(String greeting) {
        this.greeting = greeting;
    }

    public AtomicInteger getVisits() {
        return visits;
    }

    public String greet() {
        return greeting + " #" + visits.incrementAndGet() + suffix;
    }
}
