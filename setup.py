"""The one native module (mockengine/audio/_fastpath.c: the VAD's per-frame arithmetic, docs/cpu.md).

Everything else about the package is in pyproject.toml; setuptools reads both. ``optional=True``: a
machine without a C compiler still installs, and ``mockengine.audio.vad`` runs its pure Python path
(the same results, more CPU per frame).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "mockengine.audio._fastpath",
            ["mockengine/audio/_fastpath.c"],
            optional=True,
        )
    ]
)
