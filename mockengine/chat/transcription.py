"""``POST /v1/audio/transcriptions`` and ``/v1/audio/translations``: the request's form fields read and
checked as the live service checks them, and the engine's whisper transcript shaped in each
``response_format``.

Shapes after ``openai/types/audio/``: ``Transcription`` (``{"text", "logprobs"?, "usage"}``),
``TranscriptionVerbose`` (``{"task", "language", "duration", "text", "segments", "words"?, "usage"}``),
``TranscriptionTextDeltaEvent`` / ``TranscriptionTextDoneEvent`` for ``stream=true``; ``text`` is the
transcript and a newline, ``srt`` / ``vtt`` subtitles of the segments. ``whisper-1`` is billed by
duration (``usage: {"type": "duration", "seconds"}``, whole seconds rounded up), the ``gpt-4o`` models
by tokens (input: the audio at one token per 100 ms plus the prompt's text tokens; output: the
transcript's text tokens). Which ``response_format`` each model takes follows the live service:
``whisper-1`` all five, the ``gpt-*-transcribe`` models ``json`` and ``text`` (refused otherwise with
the live wording).

Nothing here blocks except ``decode_audio_file`` (PyAV): run that in an executor.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import zlib
from dataclasses import dataclass
from typing import Any

from mockengine.chat import errors
from mockengine.chat.audio import input_audio_tokens
from mockengine.chat.errors import ChatError
from mockengine.engines.stt import Transcript
from mockengine.engines.tokens import TokenCounter
from mockengine.engines.transcript_segments import ONE_SPEAKER, Cue, cues
from mockengine.engines.transcript_tokens import logprobs
from mockengine.protocol.session_schema import DIARIZING_MODEL, LANGUAGE_DETECTING_MODEL

WHISPER_MODEL = "whisper-1"
# The token-billed models (openai-python's ``AudioModel``); any ``gpt-…-transcribe…`` id is one of them.
GPT_TRANSCRIBE_MODELS = (
    "gpt-transcribe",
    "gpt-4o-transcribe",
    "gpt-4o-mini-transcribe",
    "gpt-4o-mini-transcribe-2025-12-15",
    "gpt-4o-transcribe-diarize",
)
TRANSCRIBE_MODELS = (WHISPER_MODEL, *GPT_TRANSCRIBE_MODELS)
# The model that answers the ``languages`` it detected (openai-python's ``Transcription``: "Returned by
# gpt-transcribe"); the SDK documents ``languages[]`` and ``keywords[]`` as its too.
CONTEXT_HINT_MODEL = LANGUAGE_DETECTING_MODEL
TRANSLATION_RESPONSE_FORMATS = ("json", "text", "srt", "verbose_json", "vtt")
RESPONSE_FORMATS = (*TRANSLATION_RESPONSE_FORMATS, "diarized_json")
GPT_RESPONSE_FORMATS = ("json", "text")
# What each model answers in (openai-python's ``response_format`` docstring): whisper-1 all but
# diarized_json, the diarize model json, text and diarized_json, the other gpt models json and text.
MODEL_RESPONSE_FORMATS = {
    WHISPER_MODEL: TRANSLATION_RESPONSE_FORMATS,
    DIARIZING_MODEL: (*GPT_RESPONSE_FORMATS, "diarized_json"),
}
GRANULARITIES = ("word", "segment")
# gpt-4o-transcribe-diarize: the fields openai-python documents as "not supported when using
# gpt-4o-transcribe-diarize" (prompt, include, timestamp_granularities), refused in the live wording of a
# parameter a model does not take; audio over 30 s needs a chunking_strategy ("Required when using
# gpt-4o-transcribe-diarize for inputs longer than 30 seconds"); up to 4 known speakers, each reference
# clip 2-10 s (the SDK's known_speaker_* docstrings).
DIARIZE_UNSUPPORTED = ("prompt", "include", "timestamp_granularities")
DIARIZE_UNCHUNKED_MAX_MS = 30_000
MAX_KNOWN_SPEAKERS = 4
SPEAKER_REFERENCE_MS = (2_000, 10_000)
CHUNKING_VAD_INTEGERS = ("prefix_padding_ms", "silence_duration_ms")
_DATA_URL = re.compile(r"^data:([^,;]*)((?:;[^,;]*)*),(.*)$", re.DOTALL)
# The live service's upload limit (25 MiB), and the containers it names as accepted.
MAX_FILE_BYTES = 25 * 1024 * 1024
FILE_EXTENSIONS = ("flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm")

# ISO 639-1 code → whisper's language name (verbose_json's ``language``), the languages whisper knows.
LANGUAGE_NAMES = {
    "en": "english", "zh": "chinese", "de": "german", "es": "spanish", "ru": "russian", "ko": "korean",
    "fr": "french", "ja": "japanese", "pt": "portuguese", "tr": "turkish", "pl": "polish",
    "ca": "catalan", "nl": "dutch", "ar": "arabic", "sv": "swedish", "it": "italian",
    "id": "indonesian", "hi": "hindi", "fi": "finnish", "vi": "vietnamese", "he": "hebrew",
    "uk": "ukrainian", "el": "greek", "ms": "malay", "cs": "czech", "ro": "romanian", "da": "danish",
    "hu": "hungarian", "ta": "tamil", "no": "norwegian", "th": "thai", "ur": "urdu", "hr": "croatian",
    "bg": "bulgarian", "lt": "lithuanian", "la": "latin", "mi": "maori", "ml": "malayalam",
    "cy": "welsh", "sk": "slovak", "te": "telugu", "fa": "persian", "lv": "latvian", "bn": "bengali",
    "sr": "serbian", "az": "azerbaijani", "sl": "slovenian", "kn": "kannada", "et": "estonian",
    "mk": "macedonian", "br": "breton", "eu": "basque", "is": "icelandic", "hy": "armenian",
    "ne": "nepali", "mn": "mongolian", "bs": "bosnian", "kk": "kazakh", "sq": "albanian",
    "sw": "swahili", "gl": "galician", "mr": "marathi", "pa": "punjabi", "si": "sinhala",
    "km": "khmer", "sn": "shona", "yo": "yoruba", "so": "somali", "af": "afrikaans", "oc": "occitan",
    "ka": "georgian", "be": "belarusian", "tg": "tajik", "sd": "sindhi", "gu": "gujarati",
    "am": "amharic", "yi": "yiddish", "lo": "lao", "uz": "uzbek", "fo": "faroese", "ht": "haitian creole",
    "ps": "pashto", "tk": "turkmen", "nn": "nynorsk", "mt": "maltese", "sa": "sanskrit",
    "lb": "luxembourgish", "my": "myanmar", "bo": "tibetan", "tl": "tagalog", "mg": "malagasy",
    "as": "assamese", "tt": "tatar", "haw": "hawaiian", "ln": "lingala", "ha": "hausa", "ba": "bashkir",
    "jw": "javanese", "su": "sundanese", "yue": "cantonese",
}  # fmt: skip


@dataclass(frozen=True)
class TranscriptionRequest:
    """One checked request. ``task``: ``transcribe`` or ``translate``; ``language``: the ISO 639-1 hint
    or None; ``languages`` / ``keywords``: the hints openai-python documents for ``gpt-transcribe``
    (ISO 639-1 codes; words or phrases), taken from any model as the Realtime sessions take them;
    ``stream``: SSE events (gpt models only; ignored for
    ``whisper-1`` as live)."""

    task: str
    model: str
    filename: str
    response_format: str
    language: str | None
    prompt: str | None
    temperature: float
    granularities: tuple[str, ...]
    logprobs: bool
    stream: bool
    languages: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    # chunking_strategy: None (not given), "auto", or the server_vad object as given.
    chunking: str | dict[str, Any] | None = None
    # known_speaker_names[] and the audio bytes of known_speaker_references[] (data URLs decoded), paired.
    speaker_names: tuple[str, ...] = ()
    speaker_references: tuple[bytes, ...] = ()

    @property
    def speaker(self) -> str:
        """The label of the one voice the engine hears in ``diarized_json``: the first known speaker's
        name when ``known_speaker_names[]`` is given, else ``"A"`` (the live first label). Ours: the
        engine tells no voices apart, so it matches the whole file to the first reference the client
        listed (deterministic; the live service labels each matched speaker with its name)."""
        return self.speaker_names[0] if self.speaker_names else ONE_SPEAKER

    @property
    def is_token_billed(self) -> bool:
        return self.model != WHISPER_MODEL

    @property
    def reports_languages(self) -> bool:
        """Whether the answer carries ``languages`` (``gpt-transcribe``'s ``json`` and stream)."""
        return self.model == CONTEXT_HINT_MODEL

    @property
    def whisper_language(self) -> str | None:
        """The hint whisper decodes with: ``language``, else the one code of ``languages``; several
        possible languages leave whisper to detect which (None)."""
        if self.language is not None:
            return self.language
        return self.languages[0] if len(self.languages) == 1 else None

    @property
    def whisper_prompt(self) -> str | None:
        """Whisper's initial prompt: ``prompt``, else the ``keywords`` as a list of words (whisper has no
        keyword list; the Realtime sessions' rule, ``InputTranscription.whisper_prompt``)."""
        return self.prompt or (", ".join(self.keywords) if self.keywords else None)


def _field(form: Any, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


def _listed(form: Any, name: str) -> list[str]:
    """A repeated form field, as the SDK sends it (``name[]``) or plain (``name``)."""
    return [v for key in (f"{name}[]", name) for v in form.getall(key, []) if isinstance(v, str)]


# The form fields each route takes: openai-python's TranscriptionCreateParams (with ``stream``) and
# TranslationCreateParams. A field sent as ``name[]`` (a list) or ``name[key]`` (an object's key, as the
# SDK sends ``chunking_strategy``) counts as ``name``.
TRANSCRIPTION_FIELDS = frozenset(
    {
        "file", "model", "chunking_strategy", "include", "keywords", "known_speaker_names",
        "known_speaker_references", "language", "languages", "prompt", "response_format", "stream",
        "temperature", "timestamp_granularities",
    }
)  # fmt: skip
TRANSLATION_FIELDS = frozenset({"file", "model", "prompt", "response_format", "temperature"})


def check_fields(form: Any, task: str) -> None:
    """No form field the route does not take. The live service answers an unknown argument of a JSON
    body with 400 "Unrecognized request argument supplied: <name>" (``invalid_request_error``, param
    and code null); its answer to an unknown multipart field is not public, so the same (ours; before,
    such a field was ignored). ChatError 400 naming the first unknown field, without its brackets."""
    known = TRANSCRIPTION_FIELDS if task == "transcribe" else TRANSLATION_FIELDS
    for key in form:
        name = key.split("[", 1)[0]
        if name not in known:
            raise ChatError(400, f"Unrecognized request argument supplied: {name}")


def parse_request(form: Any, task: str = "transcribe") -> TranscriptionRequest:
    """The form fields of a transcription (``task="transcribe"``) or translation request, checked; the
    ``file`` is checked by the caller. ChatError 400 in the live service's words where known; an unknown
    field first (:func:`check_fields`)."""
    check_fields(form, task)
    model = _field(form, "model")
    if not model:
        raise errors.missing_model()
    if task == "translate":
        if model != WHISPER_MODEL:
            # Live: translations are served by whisper-1 only (openai-python's docstring); wording ours.
            raise ChatError(
                400, f"Invalid model '{model}': translations are supported only by 'whisper-1'.", "model",
                "invalid_value",
            )  # fmt: skip
    elif model not in TRANSCRIBE_MODELS:
        raise errors.model_not_found(model)
    response_format = _field(form, "response_format") or "json"
    task_formats = RESPONSE_FORMATS if task == "transcribe" else TRANSLATION_RESPONSE_FORMATS
    if response_format not in task_formats:
        raise errors.invalid_enum("response_format", response_format, task_formats)
    model_formats = MODEL_RESPONSE_FORMATS.get(model, GPT_RESPONSE_FORMATS)
    if response_format not in model_formats:
        # Live wording for a gpt model ("Use 'json' or 'text' instead."); the other lists follow it.
        raise ChatError(
            400,
            f"response_format '{response_format}' is not compatible with model '{model}'. "
            f"Use {_or_list(model_formats)} instead.",
            "response_format",
            "unsupported_value",
        )
    language = _field(form, "language") or None
    if language is not None:
        _check_language(language, "language")
    languages = tuple(_listed(form, "languages"))
    keywords = tuple(k for k in _listed(form, "keywords") if k.strip())
    for code in languages:
        _check_language(code, "languages")
    temperature = _temperature(_field(form, "temperature"))
    granularities = tuple(_listed(form, "timestamp_granularities"))
    if model == DIARIZING_MODEL:
        given = {"prompt": _field(form, "prompt"), "include": _listed(form, "include"),
                 "timestamp_granularities": granularities}  # fmt: skip
        for param in DIARIZE_UNSUPPORTED:
            if given[param]:
                raise unsupported_with_model(param)
    for granularity in granularities:
        if granularity not in GRANULARITIES:
            raise errors.invalid_enum("timestamp_granularities", granularity, GRANULARITIES)
    if granularities and response_format != "verbose_json":
        # Wording ours; the rule is the SDK's docstring ("response_format must be set verbose_json").
        raise ChatError(
            400,
            "timestamp_granularities is only supported with response_format 'verbose_json'.",
            "timestamp_granularities",
            "unsupported_value",
        )
    include = _listed(form, "include")
    for item in include:
        if item != "logprobs":
            raise errors.invalid_enum("include", item, ("logprobs",))
    if include and (model == WHISPER_MODEL or response_format != "json"):
        # Wording ours; the rule is the SDK's docstring (json, gpt-4o models only).
        raise ChatError(
            400,
            f"include[]=logprobs is only supported with response_format 'json' and the gpt-4o "
            f"transcribe models, not '{model}' with '{response_format}'.",
            "include",
            "unsupported_value",
        )
    stream_text = (_field(form, "stream") or "false").lower()
    if stream_text not in ("true", "false"):  # a form field: only these two spell a boolean
        raise errors.invalid_enum("stream", _field(form, "stream"), ("true", "false"))
    stream = stream_text == "true"
    speaker_names, speaker_references = _known_speakers(form, model)
    return TranscriptionRequest(
        task=task,
        model=model,
        filename="",
        response_format=response_format,
        language=language,
        prompt=_field(form, "prompt") or None,
        temperature=temperature,
        granularities=granularities or ("segment",),
        logprobs=bool(include),
        stream=stream and model != WHISPER_MODEL,
        languages=tuple(dict.fromkeys(languages)),
        keywords=keywords,
        chunking=_chunking_strategy(form),
        speaker_names=speaker_names,
        speaker_references=speaker_references,
    )


def unsupported_with_model(param: str) -> ChatError:
    """A field the request's model does not take: the live wording and code of a parameter a model
    refuses (``Unsupported parameter: 'temperature' is not supported with this model.``)."""
    return ChatError(
        400, f"Unsupported parameter: '{param}' is not supported with this model.", param,
        "unsupported_parameter",
    )  # fmt: skip


def _chunking_strategy(form: Any) -> str | dict[str, Any] | None:
    """``chunking_strategy``: ``"auto"``, or the ``server_vad`` object as openai-python sends it in a form
    (``chunking_strategy[type]``, ``chunking_strategy[threshold]``, …) or as JSON text; None when absent.
    Checked (type, ranges) and otherwise without effect: the engine cuts segments its own way."""
    plain = _field(form, "chunking_strategy")
    fields = {
        key[len("chunking_strategy[") : -1]: value
        for key, value in form.items()
        if key.startswith("chunking_strategy[") and key.endswith("]") and isinstance(value, str)
    }
    if plain is not None and not fields:
        if plain == "auto":
            return "auto"
        try:
            parsed = json.loads(plain)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            # Wording ours, after the live invalid_value refusals.
            raise ChatError(
                400,
                f"Invalid value for 'chunking_strategy': expected 'auto' or an object with type "
                f"'server_vad', but got '{plain}' instead.",
                "chunking_strategy",
                "invalid_value",
            )
        fields = {
            key: value if isinstance(value, str) else json.dumps(value) for key, value in parsed.items()
        }
    if not fields:
        return None
    if fields.get("type") != "server_vad":
        raise errors.invalid_enum("chunking_strategy.type", fields.get("type"), ("server_vad",))
    strategy: dict[str, Any] = {"type": "server_vad"}
    for key, value in fields.items():
        param = f"chunking_strategy.{key}"
        if key == "type":
            continue
        if key == "threshold":
            number = _number(param, value)
            if number < 0.0:
                raise errors.number_below_minimum(param, 0.0, number)
            if number > 1.0:
                raise errors.number_above_maximum(param, 1.0, number)
            strategy[key] = number
        elif key in CHUNKING_VAD_INTEGERS:
            if not re.fullmatch(r"-?\d+", value):
                raise errors.invalid_integer(param, value)
            if int(value) < 0:
                raise errors.integer_below_minimum(param, 0, int(value))
            strategy[key] = int(value)
        else:
            # The live wording of a field an object does not have.
            raise ChatError(400, f"Unknown parameter: '{param}'.", param, "unknown_parameter")
    return strategy


def _number(param: str, given: str) -> float:
    try:
        return float(given)
    except ValueError:
        raise ChatError(
            400, f"Invalid type for '{param}': expected a number, but got a string instead.", param,
            "invalid_type",
        ) from None  # fmt: skip


def _known_speakers(form: Any, model: str) -> tuple[tuple[str, ...], tuple[bytes, ...]]:
    """``known_speaker_names[]`` and ``known_speaker_references[]`` checked: the diarize model's only
    (another model answers ``unsupported_parameter``: ours, the live answer is not public), as many
    names as references, at most 4, each name a distinct non-empty identifier, each reference a
    base64 ``data:`` URL (audio in any accepted container). Returns the names and the references'
    bytes; their audio (2-10 s each) is checked when decoded (:func:`check_speaker_reference`)."""
    names = _listed(form, "known_speaker_names")
    references = _listed(form, "known_speaker_references")
    if not names and not references:
        return (), ()
    if model != DIARIZING_MODEL:
        raise unsupported_with_model("known_speaker_names" if names else "known_speaker_references")
    for param, values in (("known_speaker_names", names), ("known_speaker_references", references)):
        if len(values) > MAX_KNOWN_SPEAKERS:
            raise errors.array_too_long(param, MAX_KNOWN_SPEAKERS, len(values))
    if len(names) != len(references):
        # Wording ours: the SDK pairs each name with the reference "matching" it.
        raise ChatError(
            400,
            f"known_speaker_names[] and known_speaker_references[] must be given in pairs: got "
            f"{len(names)} name(s) and {len(references)} reference(s).",
            "known_speaker_references" if len(names) > len(references) else "known_speaker_names",
            "invalid_value",
        )
    for index, name in enumerate(names):
        param = f"known_speaker_names[{index}]"
        if not name.strip():
            raise ChatError(400, f"Invalid '{param}': empty string.", param, "empty_string")
        if name in names[:index]:
            raise ChatError(
                400, f"Invalid '{param}': the name '{name}' is given twice; each speaker needs its own.",
                param, "invalid_value",
            )  # fmt: skip
    return tuple(names), tuple(_data_url_bytes(url, f"known_speaker_references[{index}]")
                               for index, url in enumerate(references))  # fmt: skip


def _data_url_bytes(url: str, param: str) -> bytes:
    """The bytes of a base64 ``data:`` URL (``data:audio/wav;base64,UklGR…``); ChatError otherwise."""
    match = _DATA_URL.match(url)
    if match is None or "base64" not in match.group(2).split(";"):
        shown = url if len(url) <= 40 else url[:40] + "…"
        raise ChatError(
            400,
            f"Invalid '{param}': expected a base64 data URL of audio (data:audio/wav;base64,…), but got "
            f"'{shown}' instead.",
            param,
            "invalid_value",
        )
    try:
        data = base64.b64decode(match.group(3), validate=True)
    except (binascii.Error, ValueError):
        raise ChatError(
            400, f"Invalid '{param}': the data URL's base64 payload does not decode.", param, "invalid_value"
        ) from None
    if not data:
        raise ChatError(400, f"Invalid '{param}': the data URL carries no audio.", param, "invalid_value")
    return data


def check_speaker_reference(index: int, duration_ms: float) -> None:
    """A known speaker's reference clip must last 2-10 s (the SDK's docstring); wording ours."""
    low, high = SPEAKER_REFERENCE_MS
    if not low <= duration_ms <= high:
        param = f"known_speaker_references[{index}]"
        raise ChatError(
            400,
            f"Invalid '{param}': a speaker reference must be between {low // 1000} and {high // 1000} "
            f"seconds of audio, but this one is {duration_ms / 1000:.2f} seconds.",
            param,
            "invalid_value",
        )


def check_chunking(request: TranscriptionRequest, duration_ms: float) -> None:
    """The diarize model refuses audio over 30 s without a ``chunking_strategy`` (the SDK's docstring),
    in the live words ("chunking_strategy is required for diarization models", invalid_value)."""
    if (
        request.model == DIARIZING_MODEL
        and request.chunking is None
        and duration_ms > DIARIZE_UNCHUNKED_MAX_MS
    ):
        raise ChatError(400, "chunking_strategy is required for diarization models", "chunking_strategy",
                        "invalid_value")  # fmt: skip


def _or_list(values: tuple[str, ...]) -> str:
    """``'a' or 'b'``, ``'a', 'b', or 'c'``."""
    quoted = [f"'{v}'" for v in values]
    return " or ".join(quoted) if len(quoted) <= 2 else ", ".join(quoted[:-1]) + f", or {quoted[-1]}"


def _check_language(code: str, param: str) -> None:
    if code not in LANGUAGE_NAMES:
        # Live wording (seen for "english" instead of "en").
        raise ChatError(
            400,
            f"Invalid language '{code}'. Language parameter must be specified in ISO-639-1 format.",
            param,
            "invalid_value",
        )


def _temperature(given: str | None) -> float:
    if given is None or given == "":
        return 0.0
    try:
        value = float(given)
    except ValueError:
        raise ChatError(
            400, f"Invalid 'temperature': expected a number, but got '{given}' instead.", "temperature",
            "invalid_type",
        ) from None  # fmt: skip
    # Range from the SDK's docstring ("between 0 and 1"). Whisper here decodes greedily whatever the
    # temperature (determinism), so the value is only checked.
    if value < 0.0:
        raise errors.number_below_minimum("temperature", 0.0, value)
    if value > 1.0:
        raise errors.number_above_maximum("temperature", 1.0, value)
    return value


def check_file(filename: str | None, size: int) -> None:
    """ChatError for a file the live service refuses before decoding: none, over 25 MiB (413, live
    wording), or a name whose extension is not an accepted container (live wording)."""
    if filename is None:
        raise errors.missing_parameter("file")
    if size > MAX_FILE_BYTES:
        raise ChatError(
            413,
            f"Maximum content size limit ({MAX_FILE_BYTES}) exceeded ({size} bytes read)",
            type="server_error",
        )
    extension = filename.rpartition(".")[2].lower() if "." in filename else ""
    if extension and extension not in FILE_EXTENSIONS:
        raise ChatError(400, f"Invalid file format. Supported formats: {list(FILE_EXTENSIONS)}")


def undecodable_file() -> ChatError:
    # Live wording for a file whose audio cannot be read.
    return ChatError(400, "Audio file might be corrupted or unsupported", "file", "invalid_value")


def _usage(request: TranscriptionRequest, transcript: Transcript, tokens: TokenCounter) -> dict[str, Any]:
    if not request.is_token_billed:
        return {"type": "duration", "seconds": math.ceil(transcript.duration_ms / 1000)}
    audio_tokens = input_audio_tokens(transcript.duration_ms)
    text_tokens = tokens.count(request.whisper_prompt or "")
    output_tokens = tokens.count(transcript.text)
    return {
        "type": "tokens",
        "input_tokens": audio_tokens + text_tokens,
        "input_token_details": {"text_tokens": text_tokens, "audio_tokens": audio_tokens},
        "output_tokens": output_tokens,
        "total_tokens": audio_tokens + text_tokens + output_tokens,
    }


def json_body(request: TranscriptionRequest, transcript: Transcript, tokens: TokenCounter) -> dict[str, Any]:
    """``response_format=json``: ``Transcription`` (``text``, ``languages`` from ``gpt-transcribe``,
    ``logprobs`` if asked, ``usage``)."""
    body: dict[str, Any] = {"text": transcript.text}
    if request.reports_languages:
        body["languages"] = detected_languages(request, transcript)
    if request.logprobs:
        body["logprobs"] = logprobs(transcript, tokens)
    body["usage"] = _usage(request, transcript, tokens)
    return body


def detected_languages(request: TranscriptionRequest, transcript: Transcript) -> list[dict[str, str]]:
    """``gpt-transcribe``'s ``languages``: ``[{"code": ISO 639-1}]``, the language whisper decoded in
    (its hint when it detected none); empty when nothing was heard ("no language could be reliably
    detected", the SDK's meaning of an empty list)."""
    if not transcript.text.strip():
        return []
    return [{"code": transcript.language or request.whisper_language or "en"}]


def verbose_body(
    request: TranscriptionRequest, transcript: Transcript, tokens: TokenCounter
) -> dict[str, Any]:
    """``response_format=verbose_json`` (whisper-1): ``TranscriptionVerbose``; ``segments`` with the
    segment granularity (the default), ``words`` with the word granularity."""
    language = "en" if request.task == "translate" else (transcript.language or request.language or "en")
    body: dict[str, Any] = {
        "task": request.task,
        "language": LANGUAGE_NAMES.get(language, language),
        "duration": round(transcript.duration_ms / 1000, 2),
        "text": transcript.text,
    }
    segments = cues(transcript)
    if "word" in request.granularities:
        words = [w for cue in segments for w in cue.words]
        body["words"] = [
            {"word": w.word, "start": round(w.start_ms / 1000, 2), "end": round(w.end_ms / 1000, 2)}
            for w in words
        ]
    if "segment" in request.granularities:
        body["segments"] = [_segment(index, cue, tokens) for index, cue in enumerate(segments)]
    body["usage"] = _usage(request, transcript, tokens)
    return body


def diarized_segments(transcript: Transcript, speaker: str = ONE_SPEAKER) -> list[dict[str, Any]]:
    """``TranscriptionDiarizedSegment``s: ``{"type": "transcript.text.segment", "id", "start", "end"
    (seconds), "text", "speaker"}``, the transcript cut as verbose_json's segments and the Realtime
    diarize events are (``cues``). One speaker, ``speaker``: ``"A"`` (the first of the live labels) or
    the first known speaker's name (``TranscriptionRequest.speaker``): the engine tells no voices
    apart. Ids ``seg_0``, ``seg_1``, … in order (ours: the live form is not public), so the same file
    gives the same answer."""
    return [
        {
            "type": "transcript.text.segment",
            "id": f"seg_{index}",
            "start": round(cue.start_s, 2),
            "end": round(cue.end_s, 2),
            "text": cue.text,
            "speaker": speaker,
        }
        for index, cue in enumerate(cues(transcript))
    ]


def diarized_body(
    request: TranscriptionRequest, transcript: Transcript, tokens: TokenCounter
) -> dict[str, Any]:
    """``response_format=diarized_json`` (gpt-4o-transcribe-diarize): ``TranscriptionDiarized``,
    ``{"task": "transcribe", "duration" (s), "text", "segments", "usage"}``."""
    return {
        "task": "transcribe",
        "duration": round(transcript.duration_ms / 1000, 2),
        "text": transcript.text,
        "segments": diarized_segments(transcript, request.speaker),
        "usage": _usage(request, transcript, tokens),
    }


def _segment(index: int, cue: Cue, tokens: TokenCounter) -> dict[str, Any]:
    text = " " + cue.text  # whisper's segment texts start with the space of their first token
    encoded = text.encode()
    probabilities = [w.probability for w in cue.words] or [1.0]
    return {
        "id": index,
        "seek": 0,
        "start": round(cue.start_s, 2),
        "end": round(cue.end_s, 2),
        "text": text,
        "tokens": tokens.token_ids(text),
        "temperature": 0.0,
        "avg_logprob": round(sum(math.log(max(p, 1e-9)) for p in probabilities) / len(probabilities), 6),
        # whisper's rule: text bytes over their zlib-compressed size
        "compression_ratio": round(len(encoded) / len(zlib.compress(encoded)), 6),
        "no_speech_prob": 0.0,
    }


def _timestamp(seconds: float, separator: str) -> str:
    ms = round(seconds * 1000)
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    secs, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{ms:03d}"


def srt(transcript: Transcript) -> str:
    """SubRip subtitles: numbered cues, ``HH:MM:SS,mmm --> HH:MM:SS,mmm``."""
    blocks = [
        f"{n}\n{_timestamp(c.start_s, ',')} --> {_timestamp(c.end_s, ',')}\n{c.text}\n"
        for n, c in enumerate(cues(transcript), start=1)
    ]
    return "\n".join(blocks) + ("\n" if blocks else "")


def vtt(transcript: Transcript) -> str:
    """WebVTT subtitles: the ``WEBVTT`` header, then ``HH:MM:SS.mmm --> HH:MM:SS.mmm`` cues."""
    blocks = [
        f"{_timestamp(c.start_s, '.')} --> {_timestamp(c.end_s, '.')}\n{c.text}\n" for c in cues(transcript)
    ]
    return "WEBVTT\n\n" + "\n".join(blocks)


def rendered(
    request: TranscriptionRequest, transcript: Transcript, tokens: TokenCounter
) -> tuple[str, str | dict[str, Any]]:
    """(content type, body) for the request's ``response_format``: JSON bodies as dicts, the rest text."""
    fmt = request.response_format
    if fmt == "json":
        return "application/json", json_body(request, transcript, tokens)
    if fmt == "verbose_json":
        return "application/json", verbose_body(request, transcript, tokens)
    if fmt == "diarized_json":
        return "application/json", diarized_body(request, transcript, tokens)
    if fmt == "srt":
        return "text/plain", srt(transcript)
    if fmt == "vtt":
        return "text/vtt", vtt(transcript)
    return "text/plain", transcript.text + "\n"


def stream_events(
    request: TranscriptionRequest, transcript: Transcript, tokens: TokenCounter
) -> list[dict[str, Any]]:
    """``stream=true`` (gpt models): a ``transcript.text.delta`` per word (the space before a word is
    part of its delta), then ``transcript.text.done`` with the whole text and the usage. With
    ``include[]=logprobs`` each event carries the logprobs of its tokens. With ``diarized_json`` a
    ``transcript.text.segment`` (``TranscriptionTextSegmentEvent``, a ``diarized_segments`` entry) follows
    the delta of each segment's last word ("a completed segment"; the deltas are kept, as for the other
    formats: whether the live stream sends them too is not public)."""
    words = re.findall(r"\s*\S+", transcript.text)
    all_logprobs = logprobs(transcript, tokens) if request.logprobs else []
    events: list[dict[str, Any]] = []
    taken = 0
    # Each segment after the delta that ends it: segment i ends at its cue's running word count.
    segments: list[dict[str, Any]] = []
    ends: list[int] = []
    if request.response_format == "diarized_json":
        segments = diarized_segments(transcript, request.speaker)
        for cue in cues(transcript):
            ends.append((ends[-1] if ends else 0) + len(cue.words))
    for count, word in enumerate(words, start=1):
        event: dict[str, Any] = {"type": "transcript.text.delta", "delta": word}
        if request.logprobs:
            mine, chars = [], 0
            while taken < len(all_logprobs) and chars < len(word):
                mine.append(all_logprobs[taken])
                chars += len(all_logprobs[taken]["token"])
                taken += 1
            event["logprobs"] = mine
        events.append(event)
        while segments and ends[0] <= count:
            events.append(segments.pop(0))
            ends.pop(0)
    events.extend(segments)  # (whisper's words and the text's may differ in number: none is lost)
    done: dict[str, Any] = {"type": "transcript.text.done", "text": transcript.text}
    if request.reports_languages:
        done["languages"] = detected_languages(request, transcript)
    if request.logprobs:
        done["logprobs"] = all_logprobs
    done["usage"] = _usage(request, transcript, tokens)
    events.append(done)
    return events
