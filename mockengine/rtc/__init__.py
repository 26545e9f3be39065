"""WebRTC plumbing shared by the engine's calls, the conformance client and the tests: the reply track
and microphone conversion (``media``), loopback ICE candidates (``ice``). Built on aiortc and PyAV;
nothing here knows the Realtime protocol."""
