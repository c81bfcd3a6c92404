"""A Spring-style Maven project: snippets run the way the project's own code does inside real
frameworks — an application context, ServiceLoader discovery through the context class loader,
the all-open `spring` preset and no-arg on project and snippet classes, main without test scope."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gradle_repl.environment import ReplEnvironment
from gradle_repl.project.buildtools import pom
from gradle_repl.project.resolve import resolve_environment
from gradle_repl.project.toolchain import Coordinate, resolve_jars
from support.paths import PROJECTS
from support.workers import SyncWorker

SPRING = PROJECTS / "maven-spring"
CONTEXT = "org.springframework.context.annotation"

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module")
def spring_env() -> ReplEnvironment:
    return resolve_environment(SPRING, build_tool="maven").environment


@pytest.fixture(scope="module")
def spring(spring_env: ReplEnvironment) -> Iterator[SyncWorker]:
    # sam-with-receiver's Maven artifact (kotlin-maven-sam-with-receiver) is missing from the Maven Central
    # mirror here, so the build can't apply it; the session gets its compiler plugin as the resolver maps
    # <plugin>sam-with-receiver</plugin>, to check the plugin on snippet-declared SAM interfaces too.
    artifact = pom.PLUGINS["sam-with-receiver"][0]
    jars = resolve_jars(
        {artifact: [Coordinate("org.jetbrains.kotlin", artifact, spring_env.kotlin_version, transitive=False)]}
    )
    env = spring_env.model_copy(
        update={
            "compiler_plugin_classpath": spring_env.compiler_plugin_classpath + jars.by_request[artifact],
            "compiler_plugin_options": [
                *spring_env.compiler_plugin_options,
                "plugin:org.jetbrains.kotlin.samWithReceiver:annotation=shop.Dsl",
            ],
        }
    )
    worker = SyncWorker(env)
    yield worker
    worker.close()


def test_the_spring_preset_and_no_arg_reach_the_repl(spring_env: ReplEnvironment) -> None:
    """<compilerPlugins>, <pluginOptions> and the plugin options the POM's <args> pass (`-P`, then `-P=…`) alike."""
    assert spring_env.compiler_plugin_options == [
        "plugin:org.jetbrains.kotlin.allopen:preset=spring",
        "plugin:org.jetbrains.kotlin.noarg:annotation=shop.Entity",
        "plugin:org.jetbrains.kotlin.allopen:annotation=shop.Open",
        "plugin:org.jetbrains.kotlin.noarg:annotation=shop.Record",
    ]
    assert not any(arg.startswith("-P") for arg in spring_env.compiler_args), spring_env.compiler_args


def test_plugin_options_from_the_poms_args_act_on_project_and_snippet_classes(spring: SyncWorker) -> None:
    """The POM's `<arg>` options (all-open for shop.Open, no-arg for shop.Record) act on the project's classes and on
    a snippet's, whose annotation is written fully qualified or imported."""
    assert spring.value('class Wide : shop.Shelf() { override fun label() = "wide" }; Wide().label()') == "wide"
    assert spring.value("shop.Receipt::class.java.getDeclaredConstructor().newInstance().total") == "0"
    for name, open_, record in (("Qualified", "@shop.Open", "@shop.Record"), ("Imported", "@Open", "@Record")):
        spring.eval(
            f"import shop.Open\nimport shop.Record\n{open_} class {name}Bin {{ fun size() = 1 }}\n"
            f"{record} class {name}Slip(val total: Long)"
        )
        assert spring.value(f"class Big{name} : {name}Bin() {{ override fun size() = 2 }}; Big{name}().size()") == "2"
        assert spring.value(f"{name}Slip::class.java.getDeclaredConstructor().newInstance().total") == "0"


def test_an_application_context_of_the_project_starts_and_wires_its_services(spring: SyncWorker) -> None:
    spring.eval(f"val shopContext = {CONTEXT}.AnnotationConfigApplicationContext(shop.ShopConfiguration::class.java)")
    assert spring.value('shopContext.getBean(shop.Pricing::class.java).total("tea", "cake")') == "775"


def test_service_loader_discovery_sees_the_projects_dependencies(spring: SyncWorker) -> None:
    # Jackson finds jackson-module-kotlin through ServiceLoader and the thread's context class loader:
    # without it a data class without a default constructor can't be read.
    modules = "com.fasterxml.jackson.databind.ObjectMapper().findAndRegisterModules().registeredModuleIds.toString()"
    assert "KotlinModule" in spring.value(modules)
    in_thread = f'var seen = ""; Thread {{ seen = {modules} }}.apply {{ start(); join() }}; seen'
    assert "KotlinModule" in spring.value(in_thread)
    spring.eval(f"val mapperContext = {CONTEXT}.AnnotationConfigApplicationContext(shop.ShopConfiguration::class.java)")
    read = 'mapperContext.getBean(com.fasterxml.jackson.databind.ObjectMapper::class.java).readValue("""{"sku":"jam","cents":5}""", shop.Product::class.java)'
    assert spring.value(read) == "Product(sku=jam, cents=5)"


def test_a_configuration_declared_in_a_snippet_is_proxied_like_the_projects(spring: SyncWorker) -> None:
    # Spring subclasses @Configuration classes (CGLIB) and needs @Bean methods open: the preset must
    # open a snippet's class and its members exactly as the build opens the project's.
    spring.eval(
        f"@{CONTEXT}.Configuration class Greetings {{\n"
        f'    @{CONTEXT}.Bean fun greeting() = "hi"\n'
        f"    @{CONTEXT}.Bean fun twice() = greeting() + greeting()\n"
        "}"
    )
    spring.eval(f"val greetings = {CONTEXT}.AnnotationConfigApplicationContext(Greetings::class.java)")
    assert spring.value('greetings.getBean("twice")') == "hihi"
    assert "SpringCGLIB" in spring.value("greetings.getBean(Greetings::class.java).javaClass.name")
    assert spring.value('class Quiet : Greetings() { override fun greeting() = "-" }; Quiet().twice()') == "--"


def test_project_services_are_open_to_a_snippet_subclass(spring: SyncWorker) -> None:
    subclass = "class Free : shop.Pricing(shop.Catalog()) { override fun total(vararg skus: String) = 0L }"
    assert spring.value(f'{subclass}; Free().total("tea")') == "0"


def test_the_spring_preset_opens_a_snippets_service_written_either_way(spring: SyncWorker) -> None:
    """A snippet's @Service, fully qualified or imported, is open with its members, as the build opens the project's."""
    spring.eval('@org.springframework.stereotype.Service class QualifiedDesk { fun greet() = "q" }')
    spring.eval('import org.springframework.stereotype.Service\n@Service class ImportedDesk { fun greet() = "i" }')
    for desk in ("QualifiedDesk", "ImportedDesk"):
        assert (
            spring.value(f'class Front{desk} : {desk}() {{ override fun greet() = "-" }}; Front{desk}().greet()') == "-"
        )


def test_no_arg_gives_project_and_snippet_entities_a_default_constructor(spring: SyncWorker) -> None:
    assert spring.value("shop.Product::class.java.getDeclaredConstructor().newInstance().cents") == "0"
    spring.eval("@shop.Entity class Line(val sku: String, val count: Int)")
    assert spring.value("Line::class.java.getDeclaredConstructor().newInstance().count") == "0"


def test_sam_with_receiver_acts_on_project_and_snippet_interfaces(spring: SyncWorker) -> None:
    assert spring.value('shop.ProductRule { cents > 400 }.check(shop.Product("tea", 450))') == "true"
    spring.eval("@shop.Dsl fun interface Label { fun of(product: shop.Product): String }")
    assert spring.value('Label { sku.uppercase() }.of(shop.Product("tea", 450))') == "TEA"


def test_springs_repository_annotation_is_not_shadowed_by_the_repls(spring: SyncWorker) -> None:
    """@file:Repository's annotation is never imported into snippets, so Spring's `Repository` stays the only one."""
    spring.eval("import org.springframework.stereotype.Repository\n@Repository class Store")
    assert spring.value("Repository::class.qualifiedName") == "org.springframework.stereotype.Repository"
    assert spring.value("Store::class.java.isAnnotationPresent(Repository::class.java)") == "true"


def test_main_does_not_see_test_scope_dependencies(spring: SyncWorker) -> None:
    # The test source set does see them: tests/project/buildtools/test_maven.py checks both sides on sample-project.
    reply = spring.eval('Class.forName("org.junit.jupiter.api.Assertions")')
    assert reply.result.type == "error" and "ClassNotFoundException" in reply.result.message
