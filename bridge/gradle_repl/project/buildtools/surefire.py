"""What maven-surefire-plugin configures for a module's test JVM, read from the effective POM as TestRunSettings.

The effective POM has merged plugin management and interpolated `${...}` from the project's properties; what is left
is surefire's own: a parameter set by a property of the POM (`<argLine>` in `<properties>`), `@{name}` replaced late
(when the test JVM starts, after plugins such as JaCoCo's prepare-agent have set `name`), and the execution
`default-test` whose configuration overrides the plugin's. Parameters and their properties are surefire's
(AbstractSurefireMojo / SurefireMojo @Parameter, 2.12–3.x). What a running session can't do is one `not_applied`
sentence each; forkCount and reuseForks say how many JVMs to fork, which a session (one JVM) makes moot.
"""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET

from gradle_repl.project.buildtools import pom
from gradle_repl.testrun_settings import TestRunSettings, jvm_options

__all__ = ["surefire_settings"]

_SUREFIRE = "maven-surefire-plugin"
# `@{name}`: surefire's late replacement (AbstractSurefireMojo.replacePropertyExpressions); `${name}`: a property the
# effective POM could not interpolate.
_LATE = re.compile(r"@\{([^}]+)\}")
_UNRESOLVED = re.compile(r"[$@]\{[^}]+\}")
# JaCoCo's agent, which prepare-agent puts into argLine (the effective POM shows it when that goal ran in the same
# build): coverage instruments every class the JVM loads, the session's Kotlin compiler's too.
_COVERAGE_AGENT = re.compile(r"-javaagent:.*(org\.jacoco\.agent|jacocoagent)[^/]*\.jar")
# Parameters that change which tests run or how, that a running session can't follow: parameter, property, sentence.
_NOT_APPLICABLE = (
    ("parallel", "parallel", "tests run one at a time, not in parallel ({value})"),
    ("threadCount", "threadCount", None),
    ("runOrder", "surefire.runOrder", "test classes run in the JUnit Platform's order, not runOrder {value}"),
    (
        "rerunFailingTestsCount",
        "surefire.rerunFailingTestsCount",
        "a failing test is not re-run (rerunFailingTestsCount {value})",
    ),
    (
        "skipAfterFailureCount",
        "surefire.skipAfterFailureCount",
        "a run does not stop after {value} failures (skipAfterFailureCount)",
    ),
    (
        "forkedProcessTimeoutInSeconds",
        "surefire.timeout",
        "the run's timeout is timeoutSeconds, not forkedProcessTimeoutInSeconds {value}",
    ),
    ("jvm", "jvm", "tests run on the session's JDK, not on jvm {value}"),
    ("systemPropertiesFile", None, "system properties from the file {value} are not set"),
    ("includesFile", "surefire.includesFile", "the includes listed in {value} are not read"),
    ("excludesFile", "surefire.excludesFile", "the excludes listed in {value} are not read"),
    (
        "excludedEnvironmentVariables",
        "surefire.excludedEnvironmentVariables",
        "the environment variables {value} are not removed",
    ),
    ("dependenciesToScan", "dependenciesToScan", "tests inside dependencies ({value}) are not run"),
    ("suiteXmlFiles", "surefire.suiteXmlFiles", "TestNG suite files ({value}) are not read"),
    ("includeJUnit5Engines", "surefire.includeJUnit5Engines", "every JUnit Platform engine runs, not only {value}"),
    ("excludeJUnit5Engines", "surefire.excludeJUnit5Engines", "the engines {value} are not left out"),
    (
        "additionalClasspathElements",
        "maven.test.additionalClasspath",
        "the additional classpath elements {value} are not on the session's classpath",
    ),
    (
        "classpathDependencyExcludes",
        "maven.test.dependency.excludes",
        "the dependencies {value} are not taken off the session's classpath",
    ),
    (
        "classpathDependencyScopeExclude",
        "maven.test.dependency.excludes.scope",
        "dependencies of scope {value} are not taken off the session's classpath",
    ),
)


def surefire_settings(project: ET.Element, module_dir: str) -> TestRunSettings | None:
    """Surefire's settings for the module's tests; None when the effective POM has no surefire (no test phase)."""
    plugin = next(
        (p for p in project.findall("build/plugins/plugin") if _text(p.find("artifactId")) == _SUREFIRE), None
    )
    if plugin is None:
        return None
    config = pom.goal_configuration(plugin, "test")
    properties = pom.project_properties(project)
    settings = TestRunSettings()

    def value(name: str, prop: str | None) -> str:
        element = config.get(name)
        if element is not None:
            return _text(element) or " ".join(_text(child) for child in element if _text(child))
        return properties.get(prop, "") if prop else ""

    if value("skipTests", "skipTests").lower() == "true":
        settings.not_applied.append(
            "surefire's skipTests is true: `mvn test` runs no tests, the session runs those it is asked to"
        )
    if value("skip", "maven.test.skip").lower() == "true":
        settings.not_applied.append(
            "maven.test.skip is true: the build compiles no test classes, so the session may hold stale ones or none"
        )
    settings.system_properties = {
        **_properties(config.get("systemProperties")),
        **_map(config.get("systemPropertyVariables")),
    }
    # JUnit Platform reads a configuration parameter it was not given from the system property of its name
    # (LauncherConfigurationParameters), so surefire's <properties><configurationParameters> become system properties.
    provider_properties = config.get("properties")
    if provider_properties is not None:
        for child in provider_properties:
            if child.tag == "configurationParameters":
                settings.system_properties.update(_java_properties(_text(child)))
            elif isinstance(child.tag, str):
                settings.not_applied.append(
                    f"surefire's provider property {child.tag} is not passed to the JUnit Platform"
                )
    settings.environment = _map(config.get("environmentVariables"))
    settings.includes = _list(config.get("includes"))
    settings.excludes = _list(config.get("excludes"))
    if selected := value("test", "test"):
        # surefire's `test` replaces includes and excludes; Class#method selects methods, which a class pattern can't.
        patterns = [p.strip() for p in selected.split(",") if p.strip()]
        settings.includes, settings.excludes = [p.split("#", 1)[0] for p in patterns], []
        if any("#" in p for p in patterns):
            settings.not_applied.append(f"surefire's test {selected} names methods: every method of those classes runs")
    settings.include_tags = _split(value("groups", "groups"))
    settings.exclude_tags = _split(value("excludedGroups", "excludedGroups"))
    # Surefire enables assertions in the test JVM unless told not to (enableAssertions, default true).
    assertions = value("enableAssertions", "enableAssertions").lower() != "false"
    settings.jvm_args = (["-ea"] if assertions else []) + _jvm_args(
        value("argLine", "argLine"), properties, settings.not_applied
    )
    working = value("workingDirectory", None)
    if working and working.rstrip("/") != module_dir.rstrip("/"):
        settings.not_applied.append(f"tests run in the module's directory, not in workingDirectory {working}")
    for name, prop, sentence in _NOT_APPLICABLE:
        found = value(name, prop)
        if found and sentence:
            settings.not_applied.append(sentence.format(value=found))
    return settings


def _jvm_args(arg_line: str, properties: dict[str, str], not_applied: list[str]) -> list[str]:
    """argLine as the test JVM's flags: `@{name}` replaced from the POM's properties, as surefire replaces it; a
    reference nothing defines (a property a plugin sets while the build runs) is left out and said."""
    if not arg_line:
        return []
    line = _LATE.sub(lambda m: properties.get(m.group(1), m.group(0)), arg_line)
    try:
        words = shlex.split(line)
    except ValueError:
        not_applied.append(
            f"argLine {arg_line!r} could not be split into flags (unbalanced quotes); the session starts without it"
        )
        return []
    coverage = [w for w in words if _COVERAGE_AGENT.match(w)]
    if coverage:
        not_applied.append(
            "JaCoCo's agent (from argLine) is left out: the session collects no coverage, and the agent would slow its compiler"
        )
    kept = [w for w in words if not _UNRESOLVED.search(w) and w not in coverage]
    dropped = sorted({m.group(0) for w in words for m in _UNRESOLVED.finditer(w)})
    if dropped:
        not_applied.append(
            f"argLine's {', '.join(dropped)} is set while the build runs (by a plugin such as JaCoCo's prepare-agent) "
            "and is not defined in the POM: the session's JVM starts without it"
        )
    return jvm_options(kept)


def _text(element: ET.Element | None) -> str:
    return (element.text or "").strip() if element is not None else ""


def _map(element: ET.Element | None) -> dict[str, str]:
    """A Maven Map parameter: each child's tag is a key, its text the value."""
    return {child.tag: _text(child) for child in element if isinstance(child.tag, str)} if element is not None else {}


def _properties(element: ET.Element | None) -> dict[str, str]:
    """A Maven Properties parameter (surefire's deprecated systemProperties): <property><name/><value/></property>."""
    if element is None:
        return {}
    return {_text(p.find("name")): _text(p.find("value")) for p in element.findall("property") if _text(p.find("name"))}


def _list(element: ET.Element | None) -> list[str]:
    """A Maven List parameter (<includes><include>…</include></includes>); an entry may hold comma-separated items."""
    return (
        [item for child in element if isinstance(child.tag, str) for item in _split(_text(child))]
        if element is not None
        else []
    )


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _java_properties(text: str) -> dict[str, str]:
    """Lines of `key=value` or `key: value` (java.util.Properties' common form; comments and blank lines skipped)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "!")):
            continue
        separator = re.search(r"\s*[=:]\s*|\s+", line)
        key, rest = (line[: separator.start()], line[separator.end() :]) if separator else (line, "")
        found[key] = rest
    return found
