"""A restart's replay is written from what the worker reported it added, never from a reading of snippet text."""

from gradle_repl.frames import AddedLibraries
from gradle_repl.host.libraries import library_annotations, replay_snippet


def test_repositories_come_first_each_library_once_in_order() -> None:
    added = AddedLibraries(repositories=["https://repo.example/m2"], coordinates=["a:b:1", "c:d:2", "a:b:1"])
    assert library_annotations(added) == [
        '@file:Repository("https://repo.example/m2")',
        '@file:DependsOn("a:b:1")',
        '@file:DependsOn("c:d:2")',
    ]


def test_a_coordinate_is_quoted_as_kotlin_reads_it_and_never_templated() -> None:
    """`$` would start a Kotlin string template, `"` would end the literal: both are escaped."""
    (annotation,) = library_annotations(AddedLibraries(coordinates=['g:a:${v}"x\\']))
    assert annotation == '@file:DependsOn("g:a:\\${v}\\"x\\\\")'


def test_the_replay_snippet_adds_the_libraries_and_does_nothing_else() -> None:
    assert replay_snippet(['@file:DependsOn("a:b:1")']) == '@file:DependsOn("a:b:1")\nUnit'
    assert library_annotations(AddedLibraries()) == []
