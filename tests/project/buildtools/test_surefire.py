"""Surefire's test configuration becomes the test session's TestRunSettings: what it sets applies, what a running JVM
can't follow is said in one sentence each, and a real `mvn` resolve of tests/projects hands it to the environment of
source set `test` (with the test classes first, test-scope dependencies and the main classes on the classpath)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gradle_repl.project.buildtools.surefire import surefire_settings
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.testrun_settings import TestRunSettings, jvm_options
from support.paths import PROJECTS
from support.sharedprojects import shared_copy


def project(plugin: str, properties: str = "") -> ET.Element:
    """An effective POM's <project> whose build has this surefire <plugin> body."""
    return ET.fromstring(
        f"<project><properties>{properties}</properties><build><plugins><plugin>"
        f"<artifactId>maven-surefire-plugin</artifactId>{plugin}</plugin></plugins></build></project>"
    )


def test_every_setting_surefire_applies_reaches_the_model_and_the_default_test_execution_wins() -> None:
    settings = surefire_settings(
        project(
            "<configuration>"
            "<systemPropertyVariables><a>1</a><b>plugin</b></systemPropertyVariables>"
            "<environmentVariables><TZ>UTC</TZ></environmentVariables>"
            "<includes><include>**/*Test.java</include><include>**/*Spec.java, %regex[.*Check]</include></includes>"
            "<excludes><exclude>**/*IT.java</exclude></excludes>"
            "<properties><configurationParameters>junit.jupiter.execution.timeout.default = 5 s\n# a comment\n"
            "junit.jupiter.displayname.generator.default=org.junit.jupiter.api.DisplayNameGenerator$Simple</configurationParameters></properties>"
            "<forkCount>2</forkCount><reuseForks>false</reuseForks>"
            "</configuration>"
            "<executions><execution><id>default-test</id><goals><goal>test</goal></goals><configuration>"
            "<systemPropertyVariables><b>execution</b></systemPropertyVariables>"
            "<groups>fast, unit</groups><excludedGroups>slow</excludedGroups>"
            "<argLine>@{argLine} -Xss2m --add-opens java.base/java.lang=ALL-UNNAMED -Dq='a b'</argLine>"
            "</configuration></execution></executions>",
            properties="<argLine>-javaagent:/agent.jar</argLine>",
        ),
        "/m",
    )
    assert settings == TestRunSettings(
        system_properties={
            "b": "execution",  # the execution's <systemPropertyVariables> replaces the plugin's, as Maven merges them
            "junit.jupiter.execution.timeout.default": "5 s",
            "junit.jupiter.displayname.generator.default": "org.junit.jupiter.api.DisplayNameGenerator$Simple",
        },
        environment={"TZ": "UTC"},
        includes=["**/*Test.java", "**/*Spec.java", "%regex[.*Check]"],
        excludes=["**/*IT.java"],
        include_tags=["fast", "unit"],
        exclude_tags=["slow"],
        # surefire's assertions (enableAssertions, default true), then argLine with @{argLine} replaced from the POM's
        # property; forkCount and reuseForks are moot in one JVM and said nowhere.
        jvm_args=["-ea", "-javaagent:/agent.jar", "-Xss2m", "--add-opens=java.base/java.lang=ALL-UNNAMED", "-Dq=a b"],
    )


def test_a_late_reference_nothing_defines_is_left_out_and_said() -> None:
    settings = surefire_settings(
        project("<configuration><argLine>@{argLine} ${undefined.opts} -Xmx1g</argLine></configuration>"), "/m"
    )
    assert settings is not None and settings.jvm_args == ["-ea", "-Xmx1g"]
    [sentence] = settings.not_applied
    assert "${undefined.opts}, @{argLine}" in sentence and "starts without it" in sentence


def test_jacocos_agent_is_left_out_and_said() -> None:
    settings = configured(
        "<argLine>-javaagent:/r/org/jacoco/org.jacoco.agent/0.8.15/org.jacoco.agent-0.8.15-runtime.jar=destfile=/t/jacoco.exec -Dx=1</argLine>"
    )
    assert settings.jvm_args == ["-ea", "-Dx=1"] and "JaCoCo's agent" in settings.not_applied[0]


def configured(configuration: str) -> TestRunSettings:
    settings = surefire_settings(project(f"<configuration>{configuration}</configuration>"), "/m")
    assert settings is not None
    return settings


def test_the_arg_line_property_applies_when_the_configuration_has_none() -> None:
    settings = surefire_settings(
        project("", properties="<argLine>-Dfrom=property</argLine><enableAssertions>false</enableAssertions>"), "/m"
    )
    assert settings is not None and settings.jvm_args == ["-Dfrom=property"]


def test_what_a_running_session_cannot_follow_is_one_sentence_each() -> None:
    settings = surefire_settings(
        project(
            "<configuration><skipTests>true</skipTests><parallel>methods</parallel><threadCount>4</threadCount>"
            "<workingDirectory>/elsewhere</workingDirectory><suiteXmlFiles><suiteXmlFile>testng.xml</suiteXmlFile></suiteXmlFiles>"
            "<properties><property><name>listener</name></property></properties>"
            "<test>CartTest#oneItem,PriceTest</test><includes><include>**/*Spec.java</include></includes></configuration>",
            properties="<surefire.rerunFailingTestsCount>2</surefire.rerunFailingTestsCount>",
        ),
        "/m",
    )
    assert settings is not None
    # surefire's `test` replaces includes (and excludes); a method can't be a class pattern, so its whole class runs.
    assert settings.includes == ["CartTest", "PriceTest"]
    joined = "\n".join(settings.not_applied)
    for expected in (
        "skipTests is true",
        "not in parallel (methods)",
        "not in workingDirectory /elsewhere",
        "TestNG suite files (testng.xml)",
        "provider property property",
        "CartTest#oneItem,PriceTest names methods",
        "not re-run (rerunFailingTestsCount 2)",
    ):
        assert expected in joined, joined
    assert len(settings.not_applied) == 7, settings.not_applied


def test_a_pom_without_surefire_has_no_test_settings() -> None:
    assert surefire_settings(ET.fromstring("<project><build><plugins/></build></project>"), "/m") is None


def test_jvm_options_join_a_launcher_option_to_its_value() -> None:
    assert jvm_options(
        ["--add-opens", "java.base/java.lang=ALL-UNNAMED", "-Xmx1g", "--add-exports=a/b=c", "--add-modules"]
    ) == [
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "-Xmx1g",
        "--add-exports=a/b=c",
        "--add-modules",
    ]


# Real Maven resolves of the test projects (docs-notes/junitbuild.md says which demonstrates what).


def _names(classpath: list[str]) -> list[str]:
    return [Path(p).name for p in classpath]


def test_a_surefire_configured_project_resolves_to_its_settings(tmp_path_factory: pytest.TempPathFactory) -> None:
    """tests/projects/maven-surefire-settings, whose `mvn test` passes exactly because these settings apply."""
    root = shared_copy(PROJECTS / "maven-surefire-settings", "test", tmp_path_factory)
    env = resolve_environment(root, source_set="test", build_tool="maven").environment
    settings = env.test_settings
    assert settings is not None
    assert settings.system_properties == {
        "greeting.locale": "en-GB",  # ${greeting.locale}, interpolated by Maven from the POM's properties
        "greeting.punctuation": "!",
        "junit.jupiter.displayname.generator.default": "org.junit.jupiter.api.DisplayNameGenerator$ReplaceUnderscores",
    }
    assert settings.environment == {"GREETING_STYLE": "formal"}
    assert (settings.include_tags, settings.exclude_tags) == (["fast"], ["slow"])
    assert (settings.includes, settings.excludes) == (["**/*Test.java", "**/*Spec.java"], ["**/*IT.java"])
    assert settings.jvm_args == [
        "-ea",
        "-Duser.timezone=UTC",
        "-Dgreeting.source=argLine",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
    ]
    joined = "\n".join(settings.not_applied)
    # @{argLine} is JaCoCo's agent, which prepare-agent (bound to initialize) set in the resolve's own build: left out.
    assert "JaCoCo's agent (from argLine) is left out" in joined
    assert "runOrder alphabetical" in joined and "rerunFailingTestsCount 2" in joined
    assert len(settings.not_applied) == 3, settings.not_applied
    # The test session's classpath: test classes first (surefire's order), then main's, then test-scope dependencies.
    # First gradle-repl's own class directories for edits the session compiles (project/session_classes.py: the test
    # source set's, then main's), then the build's outputs as surefire orders them.
    assert all("session-classes" in Path(entry).parts for entry in env.classpath[:2])
    assert env.classpath[2:4] == [str(root / "target/test-classes"), str(root / "target/classes")]
    assert (root / "target/test-classes/greet/GreeterSpec.class").is_file()
    assert "junit-jupiter-engine-5.14.1.jar" in _names(env.classpath)
    main_root = shared_copy(PROJECTS / "maven-surefire-settings", "main", tmp_path_factory)
    main = resolve_environment(main_root, build_tool="maven").environment
    assert main.test_settings is None


@pytest.mark.parametrize(
    ("name", "engine"),
    [
        ("maven-junit4", "junit-vintage-engine-5.14.1.jar"),
        ("maven-kotlin-test", "kotlin-test-junit5-2.3.21.jar"),
        ("maven-testng", "testng-7.12.0.jar"),
        ("maven-spring-boot", "spring-boot-test-4.0.7.jar"),
    ],
)
def test_a_project_whose_surefire_sets_nothing_gets_assertions_alone(
    tmp_path_factory: pytest.TempPathFactory, name: str, engine: str
) -> None:
    """Each test framework's project: its test engine (or TestNG) on the test session's classpath, and from surefire
    only what it does by default (assertions on)."""
    root = shared_copy(PROJECTS / name, "test", tmp_path_factory)
    env = resolve_environment(root, source_set="test", build_tool="maven").environment
    assert env.test_settings == TestRunSettings(jvm_args=["-ea"])
    assert engine in _names(env.classpath), _names(env.classpath)
    # First gradle-repl's own class directories for edits the session compiles (project/session_classes.py: the test
    # source set's, then main's), then the build's outputs as surefire orders them.
    assert all("session-classes" in Path(entry).parts for entry in env.classpath[:2])
    assert env.classpath[2:4] == [str(root / "target/test-classes"), str(root / "target/classes")]
    assert any((root / "target/test-classes").rglob("*Test*.class"))
