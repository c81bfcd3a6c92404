package hello;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class GreetController {
    private final Greeter greeter;

    public GreetController(Greeter greeter) {
        this.greeter = greeter;
    }

    @GetMapping("/greeting")
    public String greeting() {
        return greeter.greet();
    }
}
