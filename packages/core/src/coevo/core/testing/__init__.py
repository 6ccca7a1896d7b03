"""Testing helpers shipped with coevo-core: a small real environment and a tiny-model factory.

They let core's own tests (which run without coevo-envs installed) exercise the whole training
path on CPU in seconds.
"""
