package gradlerepl.runtime

import gradlerepl.both.DisplayKinds
import gradlerepl.both.OutputCut
import java.io.ByteArrayOutputStream
import java.io.OutputStream
import java.io.PrintStream

/** What a snippet produced: text on one of its streams, or something it displayed. */
enum class ReplEventKind { STDOUT, STDERR, DISPLAY }

/**
 * One thing a snippet produced, in the order it happened. Python polls these while a snippet runs
 * and turns each into a frame.
 */
class ReplEvent(
    @JvmField val kind: ReplEventKind,
    @JvmField val mime: String,
    @JvmField val text: String?,
    @JvmField val bytes: ByteArray?,
    @JvmField val displayKind: String,
)

/**
 * The single sink for everything a snippet prints or displays. System.out/err of the whole JVM are
 * replaced by streams feeding it, so threads a snippet starts are captured too, and text written
 * before a display() call is flushed first to keep the order a user saw.
 */
object ReplOutput {
    private val lock = Any()
    private val events = ArrayList<ReplEvent>()
    private val pending = ByteArrayOutputStream()
    private var pendingKind = ReplEventKind.STDOUT
    private var budget = Long.MAX_VALUE
    private var droppedBytes = 0L

    // The JVM's own stderr, which the worker drains into its log: kept as this object starts, which is before
    // install() replaces System.err (a second install would otherwise keep the capture).
    private val workerLog: PrintStream = System.err

    @JvmStatic
    fun install() {
        System.setOut(PrintStream(CaptureStream(ReplEventKind.STDOUT), true, "UTF-8"))
        System.setErr(PrintStream(CaptureStream(ReplEventKind.STDERR), true, "UTF-8"))
    }

    /** A line for the worker's log, never part of a snippet's output (System.err is the snippets' once installed). */
    @JvmStatic
    fun toWorkerLog(line: String) = workerLog.println(line)

    /** Starts a snippet's output allowance; bytes past it are counted, not kept. */
    @JvmStatic
    fun beginSnippet(maxBytes: Long) = synchronized(lock) {
        budget = maxBytes
        droppedBytes = 0L
    }

    /** Bytes cut since beginSnippet because the allowance ran out. */
    @JvmStatic
    fun droppedBytes(): Long = synchronized(lock) { droppedBytes }

    /** Everything produced since the last call, oldest first. */
    @JvmStatic
    fun drain(): Array<ReplEvent> = synchronized(lock) {
        flushPendingLocked()
        val out = events.toTypedArray()
        events.clear()
        out
    }

    internal fun write(kind: ReplEventKind, b: ByteArray, off: Int, len: Int) = synchronized(lock) {
        if (kind != pendingKind) {
            flushPendingLocked()
            pendingKind = kind
        }
        // The allowance ends inside this write: what OutputCut keeps (never half a character); nothing later is kept.
        val kept = OutputCut.kept(b, off, len, budget, Charsets.UTF_8)
        budget = if (kept < len) 0 else budget - kept
        pending.write(b, off, kept)
        droppedBytes += len - kept
    }

    internal fun emit(event: ReplEvent) = synchronized(lock) {
        flushPendingLocked()
        val size = (event.text?.length ?: 0).toLong() + (event.bytes?.size ?: 0)
        if (size > budget) {
            droppedBytes += size
            return@synchronized
        }
        budget -= size
        events.add(event)
    }

    private fun flushPendingLocked() {
        if (pending.size() == 0) return
        events.add(ReplEvent(pendingKind, DisplayKinds.TEXT_MIME, pending.toString(Charsets.UTF_8), null, DisplayKinds.TEXT))
        pending.reset()
    }

    private class CaptureStream(private val kind: ReplEventKind) : OutputStream() {
        override fun write(b: Int) = write(byteArrayOf(b.toByte()), 0, 1)
        override fun write(b: ByteArray, off: Int, len: Int) = ReplOutput.write(kind, b, off, len)
    }
}
