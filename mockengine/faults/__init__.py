"""Provider failure modes on demand: WebSocket and HTTP faults, seedable and scriptable.

``spec`` (kinds, compact syntax, schema), ``state`` (which connection / request gets which fault, the
injected-fault counters), ``ws`` (the session writer's filter), ``http`` (middleware for REST routes),
``shell`` (glue to the Realtime handler), ``control`` (run-time endpoints). ``wiring.install``
puts them into an application. This package's root imports nothing, so the brain can use ``spec``.
"""
