"""Deliberate breakages, each applied alone to a temporary copy of this checkout, with the tests that must catch it.

A mutation the named tests don't catch SURVIVES: a claim of the suite that nothing checks. Run by scripts/mutations;
prints one line per mutation and `N/M mutations killed`, and exits 1 when any survives, ends in an error, or no longer
applies.

    scripts/mutations                          every mutation (about 20 minutes on 2 cores)
    scripts/mutations "NAME" ...               the named ones (an unknown name is refused, exit 2)
    scripts/mutations --changed [--base REV]   those whose file, or a file of whose tests, the branch touched

--changed compares REV with the working tree: committed, uncommitted and untracked (not ignored) files alike. REV is
by default the merge-base of HEAD and origin/main when origin/main exists (the branch's own commits), else HEAD~1 (the
last commit); --base names another (`--base main`, `--base HEAD` for the uncommitted change alone). Its last line says
what it compared, for the closing note of a change that touches a mutation's files (CONTRIBUTING.md, Mutations).

Before any test runs, every chosen mutation's text must occur exactly once in its file: an entry whose code was
renamed or moved would test nothing, so the run refuses at once (exit 1, as for a survivor) and names each such entry.
tests/repo/test_mutations.py checks all of them in the suite, so a rename fails there first.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# One mutation's tests on a loaded machine; past this the run itself is broken.
RUN_TIMEOUT_SECONDS = 1800
# git's answer about this checkout's own history; past this git itself is stuck.
GIT_TIMEOUT_SECONDS = 60
# What --changed compares with when origin/main is not there (a clone without a remote): the last commit.
FALLBACK_BASE = "HEAD~1"


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # relative to the checkout
    old: str  # must occur exactly once
    new: str
    tests: tuple[str, ...]  # pytest node ids or files

    def files(self) -> set[str]:
        """The file it breaks and the files of the tests that must catch it: a change to any of them may undo a kill."""
        return {self.path, *(test.partition("::")[0] for test in self.tests)}


# The facade brings a snippet's classes into the session before it checks for a cancel, so a snippet stopped while it
# compiled is the session's too; the mutation checks first and returns before they are brought in.
STOPPED_SNIPPET_LOADED = "            var unkept: Throwable? = null\n"
STOPPED_SNIPPET_UNLOADED = (
    STOPPED_SNIPPET_LOADED + "            if (!running.beginEvaluation()) {\n"
    "                outcome.cancelledBeforeEvaluation = true\n"
    "                return outcome\n"
    "            }\n"
)

MUTATIONS = (
    Mutation(
        "an idle worker's throwaway compile stays in the session",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ReplDriver.kt",
        "                    compileUntraced(code, sourceName)\n                } catch (t: Throwable) {",
        "                    compileToRunElsewhere(code, sourceName)\n                } catch (t: Throwable) {",
        ("tests/worker/repl/test_idle_warm_up.py::test_throwaway_compiles_leave_the_session_as_it_was",),
    ),
    Mutation(
        "an idle worker compiles once more before a request that is waiting",
        "bridge/gradle_repl/worker/repl/idle_warm_up.py",
        "                return pending.get(timeout=pause)",
        "                self._compile_next()\n                return pending.get(timeout=pause)",
        ("tests/worker/repl/test_idle_warm_up.py",),
    ),
    Mutation(
        "every snippet's module leaves the modules later snippets depend on, a class's too",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetModuleChain.kt",
        ".filter { it.moduleData in snippets && declaresClasses(it) == false }",
        ".filter { it.moduleData in snippets }",
        (
            "tests/endtoend/test_kotlin_versions.py::test_declarations_stay_reachable_around_snippets_that_declare_no_class",
        ),
    ),
    Mutation(
        "a kept snippet module hands later compilations none of its providers, its classes' too",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetModuleChain.kt",
        "structured.sourceProviders.filter { it !is JavaSymbolProvider }",
        "structured.sourceProviders.filter { false }",
        (
            "tests/endtoend/test_kotlin_versions.py::test_declarations_stay_reachable_around_snippets_that_declare_no_class",
        ),
    ),
    Mutation(
        "the REPL generates its own state object again (a HashMap whose every member each compile builds)",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ReplDriver.kt",
        "            replStateObjectFqName(SnippetInstances::class.java.name)\n",
        "",
        ("tests/worker/test_worker.py::test_state_persists_across_snippets",),
    ),
    Mutation(
        "the history index leaves out the snippet compiled just before",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetHistoryIndex.kt",
        "        return snippets.lastOrNull()?.let(::read)\n",
        "        return null\n",
        ("tests/worker/test_worker.py::test_earlier_snippets_reach_later_ones_through_the_history_index",),
    ),
    Mutation(
        "the history index leaves out the imports of the snippet compiled just before",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetHistoryIndex.kt",
        "        return if (newest.imports.isEmpty()) settledImports else settledImports + newest.imports\n",
        "        return settledImports\n",
        ("tests/worker/test_worker.py::test_earlier_snippets_reach_later_ones_through_the_history_index",),
    ),
    Mutation(
        "the history index no longer tells the compiler which snippet each earlier declaration came from",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetHistoryIndex.kt",
        "        declarations.forEach { it.originalReplSnippetSymbol = snippet }\n",
        "",
        ("tests/worker/test_worker.py::test_redefinition_replaces_val_and_fun",),
    ),
    Mutation(
        "the history index is never put in place of the REPL's walks",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetHistoryIndex.kt",
        "            if (readAgainstThisKotlin()) replaceWalks(project() as Project, index, host)\n",
        "            if (false) replaceWalks(project() as Project, index, host)\n",
        ("tests/worker/test_worker.py::test_earlier_snippets_reach_later_ones_through_the_history_index",),
    ),
    Mutation(
        "a class declared again keeps its earlier module in what later compiles depend on",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetModuleChain.kt",
        "    private val shadowed = historyIndex?.let(::ShadowedClassModules)\n",
        "    private val shadowed: ShadowedClassModules? = null\n",
        (
            "tests/endtoend/test_kotlin_versions.py::test_a_class_declared_again_leaves_what_later_compiles_depend_on_unless_something_still_reaches_it",
        ),
    ),
    Mutation(
        "an earlier class's module leaves although a value or function's signature mentions the class",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ShadowedClassModules.kt",
        "        for (info in infos) pending.addAll(info.callableMentions)\n",
        "",
        (
            "tests/endtoend/test_kotlin_versions.py::test_a_class_declared_again_leaves_what_later_compiles_depend_on_unless_something_still_reaches_it",
        ),
    ),
    Mutation(
        "an earlier class's module leaves although a reachable class or type alias mentions the class",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ShadowedClassModules.kt",
        "            if (needed.add(owner)) pending.addAll(owner.classMentions)\n",
        "            needed.add(owner)\n",
        (
            "tests/endtoend/test_kotlin_versions.py::test_a_class_declared_again_leaves_what_later_compiles_depend_on_unless_something_still_reaches_it",
        ),
    ),
    Mutation(
        "an earlier class's module leaves although a function's contract names the class",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ShadowedClassModules.kt",
        "            element is FirContractElementDeclaration -> addTypesIn(element.effect, depth = 0)\n",
        "",
        (
            "tests/endtoend/test_kotlin_versions.py::test_a_class_declared_again_leaves_what_later_compiles_depend_on_unless_something_still_reaches_it",
        ),
    ),
    Mutation(
        "a nested class keeps no module: its id is not traced to the snippet class it is nested in",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ShadowedClassModules.kt",
        "            at = at.outerClassId\n",
        "            at = null\n",
        (
            "tests/endtoend/test_kotlin_versions.py::test_a_class_declared_again_leaves_what_later_compiles_depend_on_unless_something_still_reaches_it",
        ),
    ),
    Mutation(
        "kotlinx-serialization's IR passes skip a snippet whose classes are nested in its snippet class",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ClassOnlyIrPasses.kt",
        "if (declaration.origin == IrDeclarationOrigin.SCRIPT_CLASS) visitElement(declaration) else found = true",
        "if (declaration.origin != IrDeclarationOrigin.SCRIPT_CLASS) found = true",
        (
            "tests/worker/test_worker.py::test_serializable_class_declared_in_a_snippet",
            "tests/endtoend/test_kotlin_versions.py::test_serializable_class_in_a_snippet",
        ),
    ),
    Mutation(
        "an attached app's first snippet comes without the state object's class",
        "bridge/gradle_repl/worker/attach/warm_up.py",
        "            shared=shared if number == 0 else {},",
        "            shared={},",
        ("tests/worker/attach/test_attach.py::test_the_cli_lists_the_app_and_evaluates_inside_it",),
    ),
    Mutation(
        "an app without Kotlin is not lent the snippets' Kotlin runtime",
        "bridge/gradle_repl/worker/attach/snippet_runtime.py",
        "    return [entry for entry in host_classpath if Path(entry).name.startswith(RUNTIME_JAR_PREFIXES)]",
        "    return []",
        (
            "tests/worker/attach/test_snippet_runtime.py::test_an_app_without_a_kotlin_stdlib_is_lent_the_repls_stdlib_and_script_runtime",
        ),
    ),
    Mutation(
        "the lent Kotlin runtime replaces an app's own",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/AttachedSession.java",
        "            Class.forName(KOTLIN_PROBE, false, appLoader);",
        '            Class.forName("no.Such", false, appLoader);',
        (
            "tests/worker/attach/test_attach.py::test_an_app_with_kotlin_of_its_own_keeps_it_when_offered_the_snippets_runtime",
        ),
    ),
    Mutation(
        "the shared cut keeps half a character at the output limit",
        "jvm-worker/runs-in-both/gradlerepl/both/OutputCut.java",
        "            while (kept > 0 && (b[off + kept] & 0xC0) == 0x80) {\n                kept--;\n            }\n",
        "",  # not `while (false)`: javac refuses its unreachable body, and no test would then run
        (
            "tests/worker/attach/test_attach_java.py::test_a_character_split_by_the_output_limit_is_dropped_whole",
            "tests/worker/test_worker_output.py::test_2_mb_printed_is_cut_at_the_output_limit_and_the_cut_counted_exactly",
        ),
    ),
    Mutation(
        "a primitive array's text is its identity",
        "jvm-worker/runs-in-both/gradlerepl/both/ValueText.java",
        "        if (value == null || !value.getClass().isArray()) {",
        "        if (value == null || !(value instanceof Object[])) {",
        (
            "tests/worker/attach/test_attach_java.py::test_an_int_array_reads_by_its_contents_as_a_value_and_in_describe",
        ),
    ),
    Mutation(
        "the agent finds only a plain $$eval",
        "jvm-worker/runs-in-both/gradlerepl/both/SnippetBody.java",
        "            if (method.getName().startsWith(MANGLED_PREFIX)) {",
        "            if (false) {",
        (
            "tests/worker/attach/test_attach_spring.py::test_a_kotlin_2_2_apps_value_class_result_reads_as_the_program_shows_it",
        ),
    ),
    Mutation(
        "the agent over TCP takes any token",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/TokenGate.java",
        "        boolean right = greeted\n",
        "        boolean right = greeted || line != null\n",
        ("tests/endtoend/test_attach_tcp.py::test_no_token_no_session_and_each_wrong_one_waits_longer",),
    ),
    Mutation(
        "a wrong token costs no wait",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/TokenGate.java",
        "    private static final long FIRST_DELAY_MILLIS = 200;",
        "    private static final long FIRST_DELAY_MILLIS = 0;",
        ("tests/endtoend/test_attach_tcp.py::test_no_token_no_session_and_each_wrong_one_waits_longer",),
    ),
    Mutation(
        "the agent over TCP listens on every interface unless told",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/AttachAgent.java",
        "                ? new InetSocketAddress(InetAddress.getLoopbackAddress(), options.port)",
        "                ? new InetSocketAddress(options.port)",
        ("tests/endtoend/test_attach_tcp.py::test_no_token_no_session_and_each_wrong_one_waits_longer",),
    ),
    Mutation(
        "the app's class path fetched is kept without its digest checked",
        "bridge/gradle_repl/worker/link/app_classpath.py",
        "        if digest.hexdigest() != entry.digest:",
        "        if False:",
        ("tests/endtoend/test_attach_tcp.py::test_the_apps_class_path_is_fetched_whole_and_checked_by_its_digest",),
    ),
    Mutation(
        "the agent's Wire writes a field the table doesn't have",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/WireTable.java",
        '        {"L", "agent", "id:long dropped:long"},',
        '        {"L", "agent", "id:long dropped:int"},',
        ("tests/worker/link/test_wire_table.py",),
    ),
    Mutation(
        "list_running_jvms can't tell a Java app has no Kotlin",
        "bridge/gradle_repl/project/jvm_kotlin.py",
        "    return KotlinSeen(False, None)\n\n\ndef _of_jar",
        "    return KotlinSeen(None, None)\n\n\ndef _of_jar",
        (
            "tests/worker/attach/test_attach_java.py::test_a_java_app_without_kotlin_is_listed_so",
            "tests/project/test_jvm_kotlin.py::test_a_java_class_path_has_no_kotlin",
        ),
    ),
    Mutation(
        "a snippet class's generated companion is not its companion",
        "jvm-worker/runs-in-worker/class-phases/gradlerepl/classphases/ClassPhases.kt",
        "            GeneratedCompanions.set(session, declaration)\n",
        "",
        ("tests/worker/test_worker.py::test_a_snippets_serializable_class_has_its_serializer_through_the_class",),
    ),
    Mutation(
        "a sealed type declared in a snippet knows none of its inheritors",
        "jvm-worker/runs-in-worker/class-phases/gradlerepl/classphases/SealedInheritors.kt",
        "if (classId !in known) parent.setSealedClassInheritors(known + classId)",
        "if (classId !in known) Unit",
        ("tests/worker/test_worker.py::test_a_snippets_sealed_types_know_their_inheritors",),
    ),
    Mutation(
        "a session without compiler plugins starts without the class-phases add-on",
        "bridge/gradle_repl/worker/repl/class_phases.py",
        "    try:\n        jar, _ = build_class_phases_addon(",
        "    if not has_compiler_plugins(environment):\n        return []\n    try:\n        jar, _ = build_class_phases_addon(",
        (
            "tests/worker/repl/test_project_tests.py::test_a_sealed_hierarchy_declared_in_a_snippet_needs_no_compiler_plugin",
        ),
    ),
    Mutation(
        "plugin options among a build's compiler arguments dropped",
        "bridge/gradle_repl/project/resolve.py",
        "    environment.compiler_plugin_options = list(dict.fromkeys(environment.compiler_plugin_options + free.options))",
        "    pass",
        ("tests/project/test_compiler_args.py::test_every_build_tools_free_args_pass_the_one_filter",),
    ),
    Mutation(
        "a rebuild's loaded classes never redefined",
        "bridge/gradle_repl/worker/classes/class_updates.py",
        "        redefined = [name for name in changed if name in loaded]",
        "        redefined: list[str] = []",
        ("tests/host/test_hotswap.py::test_a_body_edit_keeps_values_and_objects_and_runs_the_new_body_through_them",),
    ),
    Mutation(
        "a file declaring an inline function compiled in the session",
        "bridge/gradle_repl/project/edit_plan.py",
        '        if path.endswith(".kt") and declares_inline(Path(path)):',
        "        if False:",
        (
            "tests/project/test_edit_plan.py::test_only_the_source_sets_own_source_files_compile_in_the_session",
            "tests/worker/classes/test_session_compile.py::test_an_inline_function_edit_goes_to_the_build_tool",
        ),
    ),
    Mutation(
        "a const val's new value compiled in the session",
        "bridge/gradle_repl/worker/classes/edit_compiler.py",
        "        if (constant := constant_changed(old, new)) is not None:",
        "        if (constant := None) is not None:",
        ("tests/worker/classes/test_session_compile.py::test_a_const_vals_new_value_goes_to_the_build_tool",),
    ),
    Mutation(
        "kapt in the POM ignored",
        "bridge/gradle_repl/project/buildtools/pom.py",
        '            if "kapt" in goals or "test-kapt" in goals',
        '            if "no-such-goal" in goals',
        ("tests/project/test_edit_plan.py::test_generated_sources_send_every_edit_to_the_build_tool",),
    ),
    Mutation(
        "the build's next build keeps the session's classes",
        "bridge/gradle_repl/project/session_classes.py",
        "    drop_session_classes(directory)\n",
        "    directory.mkdir(parents=True, exist_ok=True)\n",
        (
            "tests/worker/classes/test_session_compile.py::test_the_build_tools_next_build_drops_the_session_compiled_classes",
        ),
    ),
    Mutation(
        "every rebuild restarts the session",
        "bridge/gradle_repl/host/hotswap.py",
        "    if not changed:\n        return None",
        '    if not changed:\n        return "a rebuild"',
        (
            "tests/host/test_hotswap_policy.py::test_a_rebuild_of_only_classes_keeps_the_worker_and_says_what_was_updated",
        ),
    ),
    Mutation(
        "an attached snippet's output also reaches the app's console",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/SnippetOutput.java",
        "                    sink.print(stream, b, off, len);",
        "                    sink.print(stream, b, off, len);\n                    app.write(b, off, len);",
        (
            "tests/worker/attach/test_attach.py::test_what_a_snippet_prints_comes_back_and_never_reaches_the_apps_console",
        ),
    ),
    Mutation(
        "another user's JVM counts as attachable",
        "bridge/gradle_repl/project/running_jvms.py",
        "    if uid != os.getuid():",
        "    if uid != os.getuid() and False:",
        (
            "tests/worker/attach/test_attach.py::test_another_users_jvm_is_listed_as_not_attachable_and_refused_before_any_attach",
        ),
    ),
    Mutation(
        "attaching builds the named project before refusing a JVM it can't attach to",
        "bridge/gradle_repl/front/attaching.py",
        "    await asyncio.to_thread(attachable_jvm, pid)\n",
        "",
        (
            "tests/worker/attach/test_attach.py::test_another_users_jvm_is_listed_as_not_attachable_and_refused_before_any_attach",
        ),
    ),
    Mutation(
        "an attached session's describe shows a value other than the app's own",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/SnippetValues.java",
        "                outcome.set(ValueText.of(SnippetBody.boxed(value, valueClass, instance.getClass())));",
        '                outcome.set("");',
        (
            "tests/worker/attach/test_attach.py::test_describe_lists_the_sessions_names_and_types_with_values_read_in_the_app",
        ),
    ),
    Mutation(
        "an attached snippet's stderr merged into its stdout",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/SnippetOutput.java",
        "        System.setErr(routed(System.err, SnippetSink.STDERR));",
        "        System.setErr(routed(System.err, SnippetSink.STDOUT));",
        (
            "tests/worker/attach/test_attach.py::test_stdout_and_stderr_come_back_as_their_own_streams_in_the_order_printed",
        ),
    ),
    Mutation(
        "an attached snippet's text without a line end held until the snippet ends",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/SnippetSink.java",
        "                scheduler.schedule(this::flush, FLUSH_MILLIS, TimeUnit.MILLISECONDS);",
        "                scheduler.schedule(this::flush, 600_000, TimeUnit.MILLISECONDS);",
        ("tests/worker/attach/test_attach.py::test_output_arrives_while_the_snippet_runs",),
    ),
    Mutation(
        "what an attached snippet's output limit cut goes unsaid",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/SnippetSink.java",
        "        if (dropped > 0) {",
        "        if (false) {",
        ("tests/worker/attach/test_attach.py::test_output_over_the_limit_is_cut_and_the_cut_is_counted",),
    ),
    Mutation(
        "an attached session's printed chunks sent one frame each",
        "bridge/gradle_repl/worker/attach/run_in_app.py",
        "            printed.add(message)\n            continue",
        "            printed.add(message)\n            printed.flush()\n            continue",
        (
            "tests/worker/attach/test_attached.py::test_chunks_waiting_back_to_back_make_one_frame_per_stream_and_a_pause_ends_one",
        ),
    ),
    Mutation(
        "an attached session's deadline checked only while nothing arrives",
        "bridge/gradle_repl/worker/attach/run_in_app.py",
        "        if stopped_at is None and ((cancel is not None and cancel.is_set()) or now > deadline):",
        "        if message is None and stopped_at is None and ((cancel is not None and cancel.is_set()) or now > deadline):",
        ("tests/worker/attach/test_attached.py::test_output_that_never_pauses_still_meets_the_deadline",),
    ),
    Mutation(
        "the attach agent listens in a directory others can enter",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/AttachAgent.java",
        "        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || !OWNER_ONLY.containsAll(permissions)) {",
        "        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {",
        ("tests/worker/attach/test_attach.py::test_the_agent_refuses_a_socket_directory_others_can_enter",),
    ),
    Mutation(
        "every attach agent build's classes share one package (a newer jar runs an older build's loaded classes)",
        "bridge/gradle_repl/worker/artifacts/agent_jar.py",
        '_BUILD_PACKAGE = _SOURCE_PACKAGE + ".v{}"',
        "_BUILD_PACKAGE = _SOURCE_PACKAGE",
        (
            "tests/worker/attach/test_attach.py::test_an_app_holding_this_build_of_the_agent_runs_another_builds_own_code_beside_it",
        ),
    ),
    Mutation(
        "the worker talks to an attach agent of another build",
        "bridge/gradle_repl/worker/link/agent_wire.py",
        "        if hello.agent != agent:",
        "        if False:",
        ("tests/worker/attach/test_agent_hello.py",),
    ),
    Mutation(
        "an HTTP call whose client went away keeps running",
        "bridge/gradle_repl/front/http.py",
        "                await self._cancel(scope, bytes(body))",
        "                pass",
        (
            "tests/front/test_http.py::test_a_client_that_goes_away_mid_snippet_has_its_snippet_cancelled_and_no_one_elses",
        ),
    ),
    Mutation(
        "the token compared as a prefix",
        "bridge/gradle_repl/front/token.py",
        '    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode("utf-8"))',
        "    return expected.startswith(given)",
        ("tests/front/test_http.py::test_requests_without_the_right_token_get_401_and_run_nothing",),
    ),
    Mutation(
        "the worker runs an attached session's snippets in its own JVM",
        "bridge/gradle_repl/worker/boot.py",
        "    if isinstance(placement, Attached | AttachedOverTcp):\n",
        "    if False:\n",
        ("tests/worker/attach/test_attach.py::test_the_cli_lists_the_app_and_evaluates_inside_it",),
    ),
    Mutation(
        "session JVM flags dropped",
        "bridge/gradle_repl/worker/boot.py",
        "        extra_options=[*class_data.jvm_options(), *kind.jvm_options(), *request.spec.options.jvm_args],",
        "        extra_options=[*class_data.jvm_options(), *kind.jvm_options()],",
        ("tests/front/test_server.py::test_session_options_reach_the_jvm_and_describe_shows_them_masked",),
    ),
    Mutation(
        "a cancel that never reaches the worker",
        "bridge/gradle_repl/host/handle.py",
        "            await self._transport.write(encode(CancelRequest(id=request_id)))",
        "            pass",
        ("tests/host/test_host.py::test_a_cancelled_call_never_hands_its_reply_to_the_next_one",),
    ),
    Mutation(
        "a snippet stopped while it compiles is left out of its own JVM's snippet classes",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ReplDriver.kt",
        STOPPED_SNIPPET_LOADED,
        STOPPED_SNIPPET_UNLOADED,
        ("tests/worker/test_worker_output.py::test_a_snippet_stopped_while_compiling_never_runs",),
    ),
    Mutation(
        "the evaluator makes each snippet's loader under the last snippet's again",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetLoaders.kt",
        "        return configuration.with { set(ACTUAL_CLASS_LOADER, loader) }",
        "        return configuration",
        ("tests/worker/test_worker.py::test_snippet_loaders_stay_one_step_from_earlier_snippets",),
    ),
    Mutation(
        "an attached session's snippet loaders chain under the last snippet's again",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/AttachedSession.java",
        "        snippets.add(loader);\n        return loader;\n",
        "        snippets.add(loader);\n        snippets = snippets.over(loader);\n        return loader;\n",
        ("tests/worker/attach/test_attach.py::test_the_sessions_declarations_live_on_and_use_the_apps_types",),
    ),
    Mutation(
        "a snippet after a @file:DependsOn gets its loader under the snippets' classes without the library's",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetLoaders.kt",
        "        if (above == null || parent !== above) top =",
        "        if (above == null) top =",
        ("tests/front/test_server.py::test_depends_on_adds_a_library_to_the_live_session",),
    ),
    Mutation(
        "an attached snippet stopped while it compiles never joins the session's classes in the app",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/AttachedSession.java",
        "        Map<String, byte[]> classes = classes(message);\n        snippetLoader(className, classes);\n",
        "        Map<String, byte[]> classes = classes(message);\n",
        (
            (
                "tests/worker/attach/test_attach.py::"
                "test_a_snippet_cancelled_while_it_compiles_never_runs_and_later_snippets_find_its_classes_in_the_app"
            ),
        ),
    ),
    Mutation(
        "a snippet's classes are not added to what later snippets load from",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetLoaders.kt",
        "            if (loaded != null) classes.putIfAbsent(name, loaded)\n",
        "",
        ("tests/worker/test_worker.py::test_state_persists_across_snippets",),
    ),
    Mutation(
        "a cancel read before its snippet begins is dropped",
        "bridge/gradle_repl/worker/__main__.py",
        "                    self._cancelled_early.add(request.id)",
        "                    pass",
        (
            "tests/worker/test_worker_requests.py",
            "tests/worker/test_worker_output.py::test_a_snippet_cancelled_as_soon_as_it_is_sent_never_runs",
        ),
    ),
    Mutation(
        "progress held until the reply",
        "bridge/gradle_repl/front/server.py",
        '            self(f"[{frame.event}] {last}")',
        '            self._loop.call_later(30, self, f"[{frame.event}] {last}")',
        ("tests/front/test_server.py::test_a_running_snippets_output_arrives_as_progress",),
    ),
    Mutation(
        "a build guard that kills only its direct child",
        "bridge/gradle_repl/project/buildguard.py",
        "            stop_processes_now([guarded])",
        "            guarded.kill()",
        # Only the guard's lifeline can end the tree when the server is killed outright (an orderly exit ends it too).
        ("tests/front/test_server.py::test_kill_9_ends_busy_workers_and_builds_without_pdeathsig",),
    ),
    Mutation(
        "the JVM told not to map the archive",
        "bridge/gradle_repl/worker/boot.py",
        '            return [f"-XX:SharedArchiveFile={self.mapped}", "-Xshare:auto"]',
        "            return []",
        ("tests/worker/artifacts/test_classdata.py",),
    ),
    Mutation(
        "--heap-mb ignored",
        "bridge/gradle_repl/front/cli.py",
        '"heap_mb": args.heap_mb,',
        '"heap_mb": DEFAULTS.heap_mb,',
        ("tests/front/test_server.py::test_the_servers_flags_reach_the_worker_jvm",),
    ),
    Mutation(
        "the host's library replay dropped",
        "bridge/gradle_repl/host/manager.py",
        "            await self._add_libraries_again(session, worker, libraries, notices)",
        "            pass",
        ("tests/front/test_server.py::test_changed_sources_restart_the_session_say_so_and_add_its_libraries_again",),
    ),
    Mutation(
        "the init script reporting no compiler plugin options",
        "resources/repl-env.init.gradle.kts",
        '                        emit(MarkerKey.pluginOption, "plugin:$pluginId:${call(option!!, "getKey")}=${call(option, "getValue")}")',
        "                        check(option != null)",
        ("tests/jvm/test_gradle_models.py::test_a_single_module_build_reports_classpath_plugins_toolchain_and_args",),
    ),
    Mutation(
        "the context loader returning null for a missing class",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ReplDriver.kt",
        "        newest.loadClass(name) as Class<*>? ?: throw ClassNotFoundException(name)",
        "        newest.loadClass(name)",
        (
            "tests/endtoend/test_spring_boot.py::test_the_context_class_loader_answers_a_missing_class_with_class_not_found",
        ),
    ),
    Mutation(
        "snippets run on the compiler's kotlin-reflect",
        "bridge/gradle_repl/project/resolve.py",
        "    use_project_kotlin_reflect(environment)\n",
        "",
        ("tests/endtoend/test_spring_boot.py::test_snippets_reflect_with_the_projects_kotlin_reflect",),
    ),
    Mutation(
        "a block's note cut by a second cap",
        "bridge/gradle_repl/worker/results/safety.py",
        '    kept = encoded[: max(0, limit - note_room)].decode("utf-8", errors="ignore")',
        '    kept = encoded[:limit].decode("utf-8", errors="ignore")',
        ("tests/worker/test_worker_output.py::test_a_block_over_the_limit_is_cut_and_the_cut_is_counted",),
    ),
    Mutation(
        "printed text over a frame cut at the frame limit instead of split",
        "bridge/gradle_repl/worker/results/output_frames.py",
        "        return [StreamFrame(event=stream, data=piece) for piece in frame_pieces(text, self._limit)]",
        "        return [StreamFrame(event=stream, data=self._text(text))]",
        (
            "tests/worker/attach/test_attached.py::test_chunks_merged_past_the_frame_limit_arrive_whole_in_frames_within_it",
        ),
    ),
    Mutation(
        "a frame split inside a character",
        "bridge/gradle_repl/worker/results/output_frames.py",
        "        while encoded[end] & 0xC0 == 0x80:",
        "        while False:",
        (
            "tests/worker/results/test_output_frames.py::test_a_character_across_the_limit_goes_whole_into_the_next_piece",
        ),
    ),
    Mutation(
        "a character the output limit splits kept as a broken sequence",
        "jvm-worker/runs-in-worker/facade/gradlerepl/runtime/ReplOutput.kt",
        "        val kept = OutputCut.kept(b, off, len, budget, Charsets.UTF_8)\n",
        "        val kept = minOf(len.toLong(), maxOf(0L, budget)).toInt()\n",  # the byte count alone, not the shared cut
        (
            "tests/worker/test_worker_output.py::test_2_mb_printed_is_cut_at_the_output_limit_and_the_cut_counted_exactly",
        ),
    ),
    Mutation(
        "listed sessions published as the host's snake_case model",
        "bridge/gradle_repl/front/outputs.py",
        "    sessions: list[LiveSession]",
        "    sessions: list[SessionInfo]",
        ("tests/repo/test_tool_schemas.py",),
    ),
    Mutation(
        "--connect dropping what a snippet printed",
        "bridge/gradle_repl/front/remote.py",
        "                on_frame(frame)",
        "                pass",
        (
            "tests/front/test_http.py::test_a_person_at_repl_connect_continues_what_an_agent_built_and_leaves_it_running",
        ),
    ),
    Mutation(
        "a display kind the terminal prints as nothing",
        "bridge/gradle_repl/front/reply_text.py",
        "            return frame.data  # markdown and (untrusted) html print as their text",
        '            return ""',
        ("tests/repo/test_where_things_go.py",),
    ),
    Mutation(
        "snippets compile internal as the REPL mangles it",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetModifiers.kt",
        "                INTERNAL -> startsDeclaration(type, text)",
        "                INTERNAL -> false",
        ("tests/endtoend/test_kotlin_versions.py::test_internal_declarations_are_used_by_later_snippets",),
    ),
    Mutation(
        "an earlier snippet's const val crashes the backend",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/SnippetModifiers.kt",
        "                CONST -> type == KtTokens.VAL_KEYWORD",
        "                CONST -> false",
        (
            "tests/endtoend/test_kotlin_versions.py::test_a_constant_of_an_earlier_snippet_is_read_in_objects_and_functions",
        ),
    ),
    Mutation(
        "a value-class value is left to Kotlin 2.2's evaluator",
        "jvm-worker/runs-in-worker/facade/gradlerepl/repl/ReplDriver.kt",
        "                    evaluateMangledBody(linked, current, e) // Kotlin 2.2, a value-class value",
        "                    throw e",
        ("tests/endtoend/test_kotlin_versions.py::test_a_value_class_result_shows_as_the_program_would",),
    ),
    Mutation(
        "a result names a snippet class as the REPL nests it",
        "bridge/gradle_repl/worker/results/outcomes.py",
        "                value.data = without_snippet_classes(value.data)",
        "                pass",
        (
            "tests/endtoend/test_kotlin_versions.py::test_snippet_classes_read_as_written_in_results_describe_and_errors",
        ),
    ),
    Mutation(
        "an added import goes before the code's own imports",
        "bridge/gradle_repl/worker/repl/completion.py",
        "        offset += len(line)\n",
        "        pass\n",
        (
            "tests/worker/repl/test_analysis.py::test_an_added_import_goes_after_the_codes_file_annotations_comments_and_imports",
        ),
    ),
    Mutation(
        "Tab inserts a class not imported yet without its import",
        "bridge/gradle_repl/front/tab_completion.py",
        "        if taken:\n            self.apply(buffer, taken)\n",
        "",
        (
            "tests/front/test_tab_completion.py::test_a_taken_candidate_adds_its_import_above_the_code_and_the_cursor_stays_after_it",
        ),
    ),
    Mutation(
        "a session Tab starts loses its notices",
        "bridge/gradle_repl/front/tab_completion.py",
        "            await run_in_terminal(lambda: self._show_all(analysis.notices))\n",
        "            pass\n",
        (
            "tests/front/test_tab_completion.py::test_the_notices_of_a_session_tab_starts_are_shown_and_its_candidates_offered",
        ),
    ),
    Mutation(
        "--connect takes a project flag given at its default value for one left out",
        "bridge/gradle_repl/front/cli.py",
        "        if name in args.given and given != running",
        "        if name in args.given and given != _PROJECT_DEFAULTS[name] and given != running",
        (
            "tests/front/test_cli.py::test_connect_refuses_a_project_flag_given_at_its_default_and_joins_when_it_is_left_out",
        ),
    ),
    Mutation(
        "an attached snippet cancelled while it compiles never reaches the app's loader chain",
        "bridge/gradle_repl/worker/attach/attached_runner.py",
        "                self._connection.keep(\n"
        "                    request.id, class_name=class_name, classes=snippet_classes(outcome.compiledScript)\n"
        "                )\n",
        "                pass\n",
        (
            "tests/worker/attach/test_attach.py::test_a_snippet_cancelled_while_it_compiles_never_runs_and_later_snippets_find_its_classes_in_the_app",
        ),
    ),
    Mutation(
        "an attached session's timeout starts after the compile",
        "bridge/gradle_repl/worker/attach/attached_runner.py",
        "    return cancel.is_set() or time.monotonic() > deadline\n",
        "    return cancel.is_set()\n",
        (
            "tests/worker/attach/test_attach.py::test_a_timeout_that_ends_while_the_snippet_compiles_keeps_it_from_running_in_the_app",
        ),
    ),
    Mutation(
        "a snippet that never ran is taken to have its instance",
        "bridge/gradle_repl/worker/results/failed_uses.py",
        "(error.class_name == _NPE and snippet.compiled and snippet.ran)",
        "(error.class_name == _NPE and snippet.compiled)",
        (
            "tests/worker/results/test_failed_uses.py::test_a_snippet_stopped_before_it_ran_has_no_instance_and_is_named_so",
        ),
    ),
    Mutation(
        "the edit loop's compile-only build compiles in process, without the Kotlin daemon",
        "bridge/gradle_repl/project/buildtools/maven.py",
        '    return [*_compile_command(mvn, root, module, test=test, daemon=maven_speed.daemon_properties()), "-o"]',
        '    return [*_compile_command(mvn, root, module, test=test), "-o"]',
        (
            "tests/project/test_recompile.py::test_maven_compiles_offline_through_a_kotlin_daemon_that_shuts_down_when_idle",
            "tests/project/test_recompile.py::test_an_edits_compile_runs_in_an_idle_bounded_kotlin_daemon_and_writes_the_new_classes",
        ),
    ),
    Mutation(
        "Maven's JVM runs without gradle-repl's options",
        "bridge/gradle_repl/project/buildtools/maven_speed.py",
        "    ours = [option for option in MAVEN_JVM_OPTIONS if _option_name(option) not in configured]",
        "    ours: list[str] = []",
        ("tests/project/test_recompile.py::test_the_resolve_and_the_compile_alone_both_run_maven_with_those_options",),
    ),
    Mutation(
        "a full resolve never compiles in the edit loop's warm Kotlin daemon",
        "bridge/gradle_repl/project/buildtools/maven.py",
        "    daemon = warm_daemon\n",
        "    daemon = False\n",
        (
            "tests/project/buildtools/test_maven.py::test_a_resolve_compiles_in_the_kotlin_daemon_the_edit_loop_keeps_warm",
        ),
    ),
    Mutation(
        "a full resolve whose daemon can't compile fails instead of building again in process",
        "bridge/gradle_repl/project/buildtools/maven.py",
        "        daemon = False\n        outcome = build(daemon)\n",
        "        daemon = False\n",
        (
            "tests/project/buildtools/test_maven.py::test_a_warm_daemon_the_build_cant_reach_makes_it_build_again_in_process",
        ),
    ),
    Mutation(
        "a Kotlin daemon that would not start is reported as the sources' compile error",
        "bridge/gradle_repl/project/buildtools/maven.py",
        " and not is_daemon_failure(lines)",
        "",
        (
            "tests/project/test_recompile.py::test_a_compile_error_is_told_from_an_artifact_missing_offline_or_a_daemon_that_would_not_start",
        ),
    ),
    Mutation(
        "a failing test's printed output is not kept with its failure",
        "jvm-worker/runs-in-worker/junit/gradlerepl/junit/TestRuns.kt",
        "            if (target != null) target.write(b, off, len) else original.write(b, off, len)",
        "            original.write(b, off, len)",
        ("tests/worker/repl/test_project_tests.py::test_every_test_runs_with_counts_failure_details_and_progress",),
    ),
    Mutation(
        "a failure's stack keeps JUnit's and the JDK's frames",
        "bridge/gradle_repl/worker/repl/project_tests.py",
        "                _frame(element) for element in exception.getStackTrace() if self._is_own(jstr(element.getClassName()))\n",
        "                _frame(element) for element in exception.getStackTrace()\n",
        ("tests/worker/repl/test_project_tests.py::test_every_test_runs_with_counts_failure_details_and_progress",),
    ),
    Mutation(
        "a narrower passing run forgets the tests known to fail",
        "jvm-worker/runs-in-worker/junit/gradlerepl/junit/TestRuns.kt",
        "    internal fun passed(id: String) {\n        ids -= id",
        "    internal fun passed(id: String) {\n        ids.clear()",
        (
            "tests/worker/repl/test_project_tests.py::test_failed_only_runs_the_tests_known_to_fail_whatever_ran_between",
        ),
    ),
    Mutation(
        "the tests known to fail are forgotten with the session's JVM",
        "bridge/gradle_repl/host/manager.py",
        "                known_failing=session.known_failing,",
        "                known_failing=[],",
        (
            "tests/worker/repl/test_project_tests.py::test_system_exit_in_a_test_is_refused_and_ends_the_session_as_a_snippets_does",
            "tests/worker/repl/test_project_tests.py::test_failed_only_runs_the_tests_known_to_fail_whatever_ran_between",
        ),
    ),
    Mutation(
        "a renamed test stays known to fail under its old name",
        "jvm-worker/runs-in-worker/junit/gradlerepl/junit/TestRuns.kt",
        "        val gone = if (wholeRun) ids.filter { it !in chosen } else emptyList()",
        "        val gone = emptyList<String>()",
        ("tests/worker/repl/test_project_tests.py::test_a_test_broken_again_then_renamed_is_known_by_its_new_name",),
    ),
    Mutation(
        "a new file's top-level functions stay unresolved after the session compiles it",
        "bridge/gradle_repl/worker/classes/class_updates.py",
        '            shutil.copyfile(module, root / "META-INF" / f"{index}-{module.name}")',
        '            shutil.copyfile(module, root / "META-INF" / module.name)',
        (
            "tests/worker/classes/test_session_compile.py::test_a_new_files_declarations_resolve_after_the_sessions_compile",
        ),
    ),
    Mutation(
        "a deleted file's classes stay in the build's output and keep resolving",
        "bridge/gradle_repl/project/recompile.py",
        "        drop_stale_outputs(entry.environment)",
        "        pass",
        ("tests/worker/classes/test_session_compile.py::test_a_deleted_files_declarations_stop_resolving",),
    ),
    Mutation(
        "failedOnly runs every test again",
        "jvm-worker/runs-in-worker/junit/gradlerepl/junit/TestRuns.kt",
        "            if (failedOnly) {",
        "            if (false) {",
        (
            "tests/worker/repl/test_project_tests.py::test_failed_only_runs_the_tests_known_to_fail_whatever_ran_between",
        ),
    ),
    Mutation(
        "a test ignoring interruption is never stopped",
        "bridge/gradle_repl/worker/repl/project_tests.py",
        "    if run.forceStop() and run.join(int(INTERRUPT_GRACE_SECONDS * 500)):",
        "    if False:",
        (
            "tests/worker/repl/test_project_tests.py::test_a_spinning_test_is_stopped_by_the_timeout_and_the_session_stays",
        ),
    ),
    Mutation(
        "gradle-repl test exits 0 with failing tests",
        "bridge/gradle_repl/front/project_tests_report.py",
        "    return result.failed == 0 and result.stopped is None and not result.state_lost",
        "    return True",
        (
            "tests/worker/repl/test_project_tests.py::test_cli_prints_failures_then_a_summary_and_exits_1_only_when_a_test_failed",
        ),
    ),
    Mutation(
        "the worker uses an attach socket directory others can enter",
        "bridge/gradle_repl/worker/artifacts/agent_socket.py",
        " or stat.S_IMODE(info.st_mode) & 0o077:",
        ":",
        ("tests/worker/artifacts/test_agent_socket.py::test_a_directory_others_can_enter_is_refused",),
    ),
    Mutation(
        "the worker uses another user's attach socket directory",
        "bridge/gradle_repl/worker/artifacts/agent_socket.py",
        " or info.st_uid != os.getuid()",
        "",
        ("tests/worker/artifacts/test_agent_socket.py::test_another_users_directory_is_refused",),
    ),
    Mutation(
        "a describe's values under a snippet's id taken as the snippet's answer",
        "bridge/gradle_repl/worker/attach/run_in_app.py",
        "        if not isinstance(message, AgentReply) or message.id != request_id:",
        '        if message is None or getattr(message, "id", None) != request_id:',
        ("tests/worker/attach/test_attached.py::test_a_describes_values_of_the_same_id_are_never_the_snippets_answer",),
    ),
    Mutation(
        "an evicted attached session stays attached",
        "bridge/gradle_repl/host/eviction.py",
        "                    self._sessions.remove(session.session_id)\n                    await self._evict(",
        "                    await self._evict(",
        ("tests/host/test_host.py::test_an_evicted_attached_session_leaves_nothing_behind",),
    ),
    Mutation(
        "surefire's late @{argLine} is not replaced from the POM's properties",
        "bridge/gradle_repl/project/buildtools/surefire.py",
        "    line = _LATE.sub(lambda m: properties.get(m.group(1), m.group(0)), arg_line)",
        "    line = arg_line",
        (
            "tests/project/buildtools/test_surefire.py::test_every_setting_surefire_applies_reaches_the_model_and_the_default_test_execution_wins",
        ),
    ),
    Mutation(
        "an argLine reference nothing defines is dropped silently",
        "bridge/gradle_repl/project/buildtools/surefire.py",
        "    if dropped:\n",
        "    if False:\n",
        ("tests/project/buildtools/test_surefire.py::test_a_late_reference_nothing_defines_is_left_out_and_said",),
    ),
    Mutation(
        "a Maven test session's classpath puts main's classes before the test classes",
        "bridge/gradle_repl/project/buildtools/pom.py",
        "    return ([Path(tests)] if test else []) + [Path(main)]",
        "    return [Path(main)] + ([Path(tests)] if test else [])",
        (
            "tests/project/buildtools/test_maven.py::test_the_test_source_set_adds_test_classes_and_test_scope_dependencies",
        ),
    ),
    Mutation(
        "the launcher's two-word JVM options reach the in-process JVM as two options",
        "bridge/gradle_repl/testrun_settings.py",
        "        elif word in _SEPARATE_VALUE:",
        "        elif False:",
        ("tests/project/buildtools/test_surefire.py::test_jvm_options_join_a_launcher_option_to_its_value",),
    ),
    Mutation(
        "the Gradle test task's whole inherited environment is reported as the build's",
        "resources/repl-env.init.gradle.kts",
        "            if (System.getenv(key) != text) emitTestValue(",
        "            if (true) emitTestValue(",
        ("tests/jvm/test_gradle_models.py::test_the_test_task_settings_reach_a_session_of_the_test_source_set",),
    ),
    Mutation(
        "a JUnit 4 Parameterized case is named as its method alone",
        "jvm-worker/runs-in-worker/junit/gradlerepl/junit/TestRuns.kt",
        '                case != null && case.startsWith("[") && case.endsWith("]") -> "$test$case"\n',
        "",
        ("tests/worker/repl/test_project_tests_builds.py::test_junit4_runs_through_the_vintage_engine",),
    ),
    Mutation(
        "the build's test system properties are not set for a run",
        "bridge/gradle_repl/worker/repl/project_tests.py",
        "        restore = _set_properties(settings.system_properties)",
        "        restore = _set_properties({})",
        (
            "tests/worker/repl/test_project_tests_builds.py::test_surefires_settings_make_every_test_pass_as_mvn_test_does",
        ),
    ),
    Mutation(
        "what a run can't apply of the build's test settings is not said",
        "bridge/gradle_repl/worker/repl/project_tests.py",
        '        notices = [f"not applied from the build\'s test settings: {line}" for line in settings.not_applied]',
        "        notices = []",
        (
            "tests/worker/repl/test_project_tests_builds.py::test_surefires_settings_make_every_test_pass_as_mvn_test_does",
        ),
    ),
    Mutation(
        "a call's session options dropped on their way to its session",
        "bridge/gradle_repl/front/server.py",
        "                options=given_options(options),",
        "                options=None,",
        ("tests/front/test_server.py::test_session_options_given_as_a_calls_arguments_reach_its_session",),
    ),
    Mutation(
        "a probe's hit leaves out the line's locals",
        "bridge/gradle_repl/worker/probes/hits.py",
        "            for name, kind, value in zip(record.localNames, record.localTypes, record.localValues, strict=True)",
        "            for name, kind, value in zip(record.localNames, record.localTypes, record.localValues, strict=True)\n"
        "            if False",
        ("tests/worker/probes/test_probes.py::test_a_probe_records_locals_and_private_state_at_a_line",),
    ),
    Mutation(
        "a probe's code can't read the probed class's private members",
        "jvm-worker/runs-in-worker/facade/gradlerepl/probes/ProbeSites.kt",
        "(access and (Opcodes.ACC_PRIVATE or Opcodes.ACC_PROTECTED).inv()) or Opcodes.ACC_PUBLIC",
        "access",
        ("tests/worker/probes/test_probes.py::test_a_probe_records_locals_and_private_state_at_a_line",),
    ),
    Mutation(
        "a `when` that throws records no hit",
        "jvm-worker/runs-in-both/gradlerepl/both/ProbeCode.java",
        "                ProbeHook.failed(thrown, site.id, owner, self, locals);\n",
        "                return;\n",
        (
            "tests/worker/probes/test_probes.py::test_two_probes_a_throwing_capture_and_a_failing_snippet_keep_their_hits",
        ),
    ),
    Mutation(
        "a `when` that calls its probed method evaluates itself again there",
        "jvm-worker/runs-in-both/gradlerepl/both/ProbeCode.java",
        "        if (holder == me) {\n            return GRADLE_REPL_NOT_ENTERED;\n        }\n        if (holder == null) {",
        "        if (true) {",
        ("tests/worker/probes/test_probes.py::test_when_chooses_the_hits_and_max_hits_ends_the_probe",),
    ),
    Mutation(
        "an explained rerun runs in the session's loader, its probes retransformed in",
        "jvm-worker/runs-in-worker/facade/gradlerepl/probes/RerunLoader.kt",
        "            return if (reaches) null else loader",
        "            return null",
        ("tests/worker/probes/test_probes.py::test_explain_reruns_the_test_afresh_unless_it_reaches_package_private",),
    ),
    Mutation(
        "a rerun's fresh test class can't reach the package-private code it calls",
        "jvm-worker/runs-in-worker/facade/gradlerepl/probes/RerunLoader.kt",
        "else !publicIn(name, member, field)",
        "else false",
        ("tests/worker/probes/test_probes.py::test_explain_reruns_the_test_afresh_unless_it_reaches_package_private",),
    ),
    Mutation(
        "a probe records what another probe's `when` reaches",
        "jvm-worker/runs-in-both/gradlerepl/both/ProbeHook.java",
        "            if (insideAnotherPass(fromPass)) {",
        "            if (false) {",
        ("tests/worker/probes/test_probes.py::test_when_chooses_the_hits_and_max_hits_ends_the_probe",),
    ),
    Mutation(
        "a rerun's fresh test class can't reach the package-private method it inherits",
        "jvm-worker/runs-in-worker/facade/gradlerepl/probes/RerunLoader.kt",
        "if (superName != null && inheritsPackagePrivate(superName, packagePath)) reaches = true",
        "",
        ("tests/worker/probes/test_probes.py::test_explain_reruns_the_test_afresh_unless_it_reaches_package_private",),
    ),
    Mutation(
        "hits past the reply's limit are dropped without a word",
        "bridge/gradle_repl/worker/probes/call_probes.py",
        "        if self._left_out:",
        "        if False:",
        ("tests/worker/probes/test_probes.py::test_hits_past_the_replys_limit_are_counted_not_lost_silently",),
    ),
    Mutation(
        "an explained failure's frames start at the throwing frame",
        "bridge/gradle_repl/worker/repl/failure_frames.py",
        "list(dict.fromkeys(reversed(frames)))",
        "list(dict.fromkeys(frames))",
        (
            "tests/worker/probes/test_probes.py::test_a_failures_frames_become_probes_outermost_first_and_take_their_last_hit",
            "tests/worker/probes/test_probes.py::test_explain_failures_gives_each_frame_of_a_failure_what_it_held",
        ),
    ),
    Mutation(
        "an extension function's receiver is not its `this`",
        "jvm-worker/runs-in-worker/facade/gradlerepl/probes/ProbeSites.kt",
        "val receiver = if (isStatic) extensionReceiver(method, instructions, at) else null",
        "val receiver: ProbeLocal? = null",
        ("tests/endtoend/test_kotlin_versions.py::test_a_probe_in_an_extension_function_on_the_older_kotlin",),
    ),
    Mutation(
        "a session probe past its maxHits stays in the code",
        "jvm-worker/runs-in-both/gradlerepl/both/ProbeRun.java",
        "            if (hit >= probe.maxHits) {\n                probe.retire();\n            }",
        "",
        ("tests/worker/probes/test_probes.py::test_a_probe_that_outlives_its_call_records_a_thread_a_snippet_started",),
    ),
    Mutation(
        "a second probe in one method goes where the first one's call moved the instructions",
        "jvm-worker/runs-in-worker/facade/gradlerepl/probes/ProbeInstrumenter.kt",
        "val instructions = read.getOrPut(method) { method.instructions.toArray() }",
        "val instructions = method.instructions.toArray()",
        ("tests/worker/probes/test_probes.py::test_a_probe_on_a_class_not_loaded_yet_applies_when_it_loads",),
    ),
    Mutation(
        "an app's class keeps the probe's bytes after its last probe goes",
        "jvm-worker/runs-in-app/agent/gradlerepl/agent/ProbeClasses.java",
        "if (known != null && known.now != null && !ProbeHook.liveIn(name)) {",
        "if (false) {",
        (
            "tests/worker/attach/test_attach.py::test_over_mcp_two_sessions_attach_to_one_app_each_with_its_own_state_and_detach",
        ),
    ),
    Mutation(
        "an attached session's snippet runs without its probes",
        "bridge/gradle_repl/worker/attach/attached_runner.py",
        "with self._probes.during(request.probes) as probes:",
        "with self._probes.during([]) as probes:",
        (
            "tests/worker/attach/test_attach.py::test_a_calls_probe_records_what_the_apps_code_held_when_a_snippet_ran_it",
        ),
    ),
    Mutation(
        "a constructor's probe passes `this` once an argument's object is built",
        "jvm-worker/runs-in-worker/facade/gradlerepl/probes/ProbeSites.kt",
        "                    if (built == 0) return false\n",
        "                    return false\n",
        ("tests/worker/probes/test_probes.py::test_a_probe_on_a_class_not_loaded_yet_applies_when_it_loads",),
    ),
    Mutation(
        "a worker started without the warm-up counts loading the compiler against its first snippet's timeout",
        "bridge/gradle_repl/worker/repl/local_runner.py",
        "            if first_compile_until is not None and not running.getEvaluating():\n",
        "            if False:\n",
        ("tests/front/test_server.py::test_the_servers_flags_reach_the_worker_jvm",),
    ),
    Mutation(
        "a worker started without the warm-up gives its warm-up's number to the users' first snippet",
        "bridge/gradle_repl/worker/boot.py",
        "            snippets.skip_warm_up()\n",
        "            pass\n",
        ("tests/front/test_server.py::test_the_servers_flags_reach_the_worker_jvm",),
    ),
    Mutation(
        "the spare starts beside the first call's snippet, which loads the compiler",
        "bridge/gradle_repl/host/manager.py",
        "            session.background_due = spec\n",
        "            self._spare.refill(spec.plain())\n",
        ("tests/host/test_host.py::test_the_spare_starts_once_the_call_that_started_a_session_is_answered",),
    ),
    Mutation(
        "the host kills a worker whose first eval is still loading the compiler at the plain deadline",
        "bridge/gradle_repl/host/handle.py",
        "            on_frame,\n            compile_allowance_seconds=self._compile_allowance(),\n",
        "            on_frame,\n",
        ("tests/host/test_host.py::test_a_worker_that_stops_answering_is_killed_at_the_deadline",),
    ),
    Mutation(
        "the host keeps waiting the first compile's allowance after an eval compiled",
        "bridge/gradle_repl/host/handle.py",
        "        if result.times is not None:  # it compiled: the compiler is loaded\n            self._first_compile_pending = False\n",
        "",
        ("tests/host/test_host.py::test_a_worker_that_stops_answering_is_killed_at_the_deadline",),
    ),
    Mutation(
        "a check that loads the compiler gets only the plain deadline",
        "bridge/gradle_repl/host/handle.py",
        "            lambda request_id: CheckRequest(id=request_id, code=code),\n            timeout_seconds,\n            None,\n            compile_allowance_seconds=self._compile_allowance(),\n",
        "            lambda request_id: CheckRequest(id=request_id, code=code),\n            timeout_seconds,\n            None,\n",
        ("tests/host/test_host.py::test_a_check_before_any_eval_may_take_the_first_compiles_allowance",),
    ),
    Mutation(
        "a session opened ahead of its first snippet starts without the warm-up",
        "bridge/gradle_repl/host/manager.py",
        "        async with self._entered(target, progress, options, warm_up=True) as (_, _, notices):\n",
        "        async with self._entered(target, progress, options) as (_, _, notices):\n",
        (
            "tests/host/test_host.py::test_a_worker_a_call_waits_for_skips_the_warm_up_and_one_opened_ahead_or_spare_keeps_it",
        ),
    ),
    Mutation(
        "the spare starts after close_all when a call it ended was a session's first",
        "bridge/gradle_repl/host/manager.py",
        "        if due is None or session.closed or self._closing:\n",
        "        if due is None:\n",
        ("tests/host/test_host.py::test_close_all_during_a_sessions_first_call_starts_no_spare",),
    ),
)


def main(argv: list[str]) -> int:
    parser = _parser()
    arguments = parser.parse_args(argv)
    chosen, scope = _chosen(parser, arguments)
    stale = [f"{m.name}: NOT APPLIED: {why}" for m in chosen if (why := not_applied(m, REPO))]
    if stale:
        print(*stale, sep="\n")
        print(f"{len(stale)} of {len(chosen)} mutations no longer apply: point each at today's code or remove it")
        return 1
    killed = 0
    started = time.monotonic()
    for mutation in chosen:
        verdict = run(mutation)
        killed += verdict.startswith("killed")
        print(f"{mutation.name}: {verdict}", flush=True)
    print(f"{killed}/{len(chosen)} mutations killed in {time.monotonic() - started:.0f} s{scope}")
    return 0 if killed == len(chosen) else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Runs scripts/mutations.py's breakages; see its docstring.")
    parser.add_argument("names", nargs="*", help="mutations to run by name (default: all)")
    parser.add_argument("--changed", action="store_true", help="only those whose files differ from the base")
    parser.add_argument(
        "--base", help=f"with --changed: the revision compared (merge-base with origin/main, else {FALLBACK_BASE})"
    )
    return parser


def _chosen(parser: argparse.ArgumentParser, arguments: argparse.Namespace) -> tuple[list[Mutation], str]:
    """The mutations the arguments name, and what the summary line says of how they were chosen; a usage error exits 2."""
    if arguments.names and arguments.changed:
        parser.error("name mutations or give --changed, not both")
    if arguments.base and not arguments.changed:
        parser.error("--base goes with --changed")
    if arguments.changed:
        base = arguments.base or default_base()
        files = changed_files(base)
        return touched(MUTATIONS, files), f" (--changed: {len(files)} files differ from {base})"
    unknown = set(arguments.names) - {m.name for m in MUTATIONS}
    if unknown:
        parser.error(f"no mutation named {', '.join(map(repr, sorted(unknown)))}")
    return [m for m in MUTATIONS if not arguments.names or m.name in arguments.names], ""


def not_applied(mutation: Mutation, root: Path) -> str | None:
    """Why the mutation can't be applied to the tree at `root` (its text is not there exactly once), or None."""
    target = root / mutation.path
    if not target.is_file():
        return f"{mutation.path} does not exist"
    count = target.read_text(encoding="utf-8").count(mutation.old)
    return None if count == 1 else f"the text to change occurs {count} times in {mutation.path}"


def touched(mutations: tuple[Mutation, ...], files: set[str]) -> list[Mutation]:
    """The mutations a change of these files (checkout-relative paths) may have undone."""
    return [m for m in mutations if m.files() & files]


def default_base() -> str:
    """Where the branch left origin/main, when the clone has it; else the last commit."""
    if _git("rev-parse", "--verify", "--quiet", "origin/main").returncode != 0:
        return FALLBACK_BASE
    return _git_lines("merge-base", "HEAD", "origin/main")[0]


def changed_files(base: str) -> set[str]:
    """The files that differ between `base` and the working tree, and the untracked ones git doesn't ignore."""
    return {*_git_lines("diff", "--name-only", base, "--"), *_git_lines("ls-files", "--others", "--exclude-standard")}


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=GIT_TIMEOUT_SECONDS)


def _git_lines(*args: str) -> list[str]:
    done = _git(*args)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.splitlines()


def run(mutation: Mutation) -> str:
    with tempfile.TemporaryDirectory(prefix="gradle-repl-mutation-") as work:
        copy = Path(work) / "checkout"
        _copy_checkout(copy)
        if (why := not_applied(mutation, copy)) is not None:
            return f"NOT APPLIED: {why}"
        target = copy / mutation.path
        target.write_text(target.read_text(encoding="utf-8").replace(mutation.old, mutation.new), encoding="utf-8")
        # The checkout's own venv runs the copy's code: PYTHONPATH comes before its editable install, and the
        # workers and build guards it starts inherit it.
        env = {**os.environ, "PYTHONPATH": str(copy / "bridge")}
        done = subprocess.run(
            [
                str(REPO / ".venv/bin/python"),
                "-m",
                "pytest",
                "-x",
                "-q",
                "-n",
                "0",
                "-p",
                "no:cacheprovider",
                "-rf",
                *mutation.tests,
            ],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_SECONDS,
        )
    if done.returncode == 0:
        return "SURVIVED"
    failed = re.findall(r"^FAILED (\S+)", done.stdout, re.MULTILINE)
    if not failed:
        return f"ERROR (pytest exited {done.returncode} without a failed test):\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    return f"killed by {failed[0]}"


def _copy_checkout(destination: Path) -> None:
    """The working tree as git sees it (tracked and untracked, not ignored): uncommitted edits count."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
