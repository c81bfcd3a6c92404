package mixed;

/** Java API the Kotlin side builds on, as Javalin's Handler is. */
@FunctionalInterface
public interface Handler {
    String handle(String request);

    static String shout(String text) {
        return Routes.INSTANCE.upper(text) + "!";
    }
}
