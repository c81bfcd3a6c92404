"""A Spring Boot application as start.spring.io makes it (Kotlin 2.2 from the starter parent, JDBC on H2,
configuration properties): a snippet starts it the way its users do, with auto-configuration probing for
optional classes through the context class loader, and sees the project's kotlin-reflect, not the compiler's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.kotlin_reflect import is_kotlin_reflect
from gradle_repl.project.resolve import resolve_environment
from support.paths import PROJECTS
from support.workers import SyncWorker, running_worker

BOOT = PROJECTS / "maven-spring-boot"

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module")
def boot_env() -> ReplEnvironment:
    return resolve_environment(BOOT, build_tool="maven").environment


@pytest.fixture(scope="module")
def boot(boot_env: ReplEnvironment) -> Iterator[SyncWorker]:
    with running_worker(boot_env) as worker:
        yield worker


def test_the_context_class_loader_answers_a_missing_class_with_class_not_found(boot: SyncWorker) -> None:
    """Libraries probe for optional classes through the context loader and expect ClassNotFoundException."""
    probe = (
        'try { Class.forName("does.not.Exist", false, Thread.currentThread().contextClassLoader); "found" }\n'
        "catch (e: Throwable) { e.javaClass.name }"
    )
    assert boot.value(probe) == "java.lang.ClassNotFoundException"
    assert boot.value('Thread.currentThread().contextClassLoader.loadClass("blog.Article").simpleName') == "Article"


def test_spring_application_run_starts_the_app_and_its_beans_answer(boot: SyncWorker) -> None:
    """SpringApplication.run, as the project's main does: auto-configuration, H2 with schema and data, properties."""
    started = boot.eval("val app = org.springframework.boot.SpringApplication.run(blog.BlogApplication::class.java)")
    assert started.result.type == "success", started.result.message + "\n" + started.result.stack
    assert boot.value("app.getBean(blog.BlogService::class.java).headline()") == "Blog: Lorem, Ipsum"
    assert boot.value('app.getBean(blog.ArticleRepository::class.java).add("Hello, REPL!").slug') == "hello-repl"
    assert boot.value("app.close(); app.isActive") == "false"


def test_run_application_with_arguments_as_kotlin_users_start_it(boot: SyncWorker) -> None:
    """The Kotlin way (`runApplication<App>(args)`), with command-line properties overriding the project's."""
    code = (
        "import org.springframework.boot.runApplication\n"
        'val other = runApplication<blog.BlogApplication>("--blog.title=Other", "--spring.datasource.url=jdbc:h2:mem:other")\n'
        "other.getBean(blog.BlogProperties::class.java).title"
    )
    assert boot.value(code) == "Other"
    assert boot.value("other.close(); other.isActive") == "false"


def test_snippets_reflect_with_the_projects_kotlin_reflect(boot_env: ReplEnvironment, boot: SyncWorker) -> None:
    """The compiler brings kotlin-reflect 1.6.10; the project's 2.2.21 is the one snippets run on."""
    (project_reflect,) = [Path(j).name for j in boot_env.classpath if is_kotlin_reflect(j)]
    assert [Path(j).name for j in boot_env.repl_host_classpath if is_kotlin_reflect(j)] == [project_reflect]
    location = boot.value(
        "kotlin.reflect.full.IllegalCallableAccessException::class.java.protectionDomain.codeSource.location"
    )
    assert location.endswith(f"/{project_reflect}"), location
    members = (
        "import kotlin.reflect.full.memberProperties\nblog.Article::class.memberProperties.map { it.name }.sorted()"
    )
    assert boot.value(members) == "[id, slug, title]"


def test_the_context_loader_lists_each_resource_once(boot: SyncWorker) -> None:
    """The REPL's loaders list the project classpath on top of the project's own loader; a scan through the
    context loader (Spring's classpath*:, ServiceLoader, logback) must still see each resource once."""
    loader = "Thread.currentThread().contextClassLoader"
    assert boot.value(f'{loader}.getResources("blog/BlogApplication.class").toList().size') == "1"
    assert (
        boot.value(f'{loader}.getResources("META-INF/spring.factories").toList().let {{ it.size == it.toSet().size }}')
        == "true"
    )
