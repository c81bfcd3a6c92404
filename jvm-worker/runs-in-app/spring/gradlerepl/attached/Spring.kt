package gradlerepl.attached

import org.springframework.boot.SpringApplication
import org.springframework.context.ApplicationContext
import org.springframework.context.ConfigurableApplicationContext

// The Spring helpers of a session attached to a running Spring Boot app. Every one is inline: its body is compiled
// into the snippet that calls it, so nothing of this file has to exist in the app, whose own Spring runs it. Nothing
// in the app changes to be found: the context is one of those Spring Boot registers for its shutdown hook
// (SpringApplication.shutdownHook's SpringApplicationShutdownHook.contexts, private fields read by reflection).

/** The running app's Spring context: the newest active one Spring Boot started. */
@Suppress("NOTHING_TO_INLINE")
inline val applicationContext: ApplicationContext
    get() {
        val hook = SpringApplication::class.java.getDeclaredField("shutdownHook").also { it.isAccessible = true }.get(null)
        val registered = hook.javaClass.getDeclaredField("contexts").also { it.isAccessible = true }.get(hook) as Set<*>
        return registered.toList().filterIsInstance<ConfigurableApplicationContext>().lastOrNull { it.isActive }
            ?: throw IllegalStateException("this JVM has no running Spring ApplicationContext (none that Spring Boot started is active)")
    }

/** The app's bean of type T (the only one, or the primary one). */
inline fun <reified T : Any> bean(): T = applicationContext.getBean(T::class.java)

/** The app's bean of this name. */
@Suppress("NOTHING_TO_INLINE")
inline fun bean(name: String): Any = applicationContext.getBean(name)

/** The names of the app's beans, sorted. */
@Suppress("NOTHING_TO_INLINE")
inline fun beanNames(): List<String> = applicationContext.beanDefinitionNames.sorted()
