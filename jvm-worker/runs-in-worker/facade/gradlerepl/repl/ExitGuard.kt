package gradlerepl.repl

import java.security.Permission

/**
 * Turns a snippet's System.exit into an orderly end of the session. Letting the JVM exit from a snippet's
 * thread runs the process's native exit handlers under JPype's feet, which can end it by SIGABRT and lose
 * the code. The guard refuses the exit (the snippet sees a SecurityException), remembers the status, and the
 * worker then replies and exits with it. It allows everything else. Security managers are gone from JDK 24
 * on: there the JVM's own exit stands and the host reports what it can.
 */
object ExitGuard {
    @Volatile private var status: Int? = null

    /** The status of the first System.exit since the guard was installed, or null. */
    @JvmStatic fun requestedStatus(): Int? = status

    @JvmStatic
    fun install(): Boolean = try {
        System.setSecurityManager(Guard())
        true
    } catch (e: UnsupportedOperationException) {
        false
    } catch (e: SecurityException) {
        false
    }

    private class Guard : SecurityManager() {
        override fun checkPermission(perm: Permission) {}
        override fun checkPermission(perm: Permission, context: Any?) {}
        override fun checkExit(code: Int) {
            if (status == null) status = code
            throw SecurityException("System.exit($code) ends this REPL session: gradle-repl stops its JVM after this snippet")
        }
    }
}
