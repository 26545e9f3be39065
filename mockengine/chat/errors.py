"""Chat Completions errors as the real service sends them: an HTTP status and ``{"error": {...}}``.

Body shape (observed on api.openai.com and parsed by the ``openai`` SDK into ``APIStatusError.body``)::

    {"error": {"message": "...", "type": "invalid_request_error", "param": "messages.[1].role", "code": null}}

Messages are verbatim where public error reports quote them (misspellings included: the service writes
"preceeding"); where none could be found the wording is ours and says so in a comment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mockengine.protocol.errors import ProtocolError, counted, json_text

KEYS_URL = "https://platform.openai.com/account/api-keys"


@dataclass
class ChatError(Exception):
    """One refused request: ``status`` is the HTTP status, the rest is the ``error`` object."""

    status: int
    message: str
    param: str | None = None
    code: str | None = None
    type: str = "invalid_request_error"
    # The connection cannot carry another request (the body was left half read): answer "Connection: close".
    close_connection: bool = False

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    @classmethod
    def from_protocol(cls, error: ProtocolError) -> ChatError:
        """A validation failure worded by the shared schema translator (``Invalid type for …``)."""
        return cls(400, error.message, error.param, error.code, error.type)


def mask_key(key: str) -> str:
    """The key as the service echoes it: first 8 and last 4 characters, a ``*`` for each one between
    (``sk-VKMIs***…***wjh3``); short keys are echoed whole, as observed for keys like ``sk jj``."""
    if len(key) <= 12:
        return key
    return key[:8] + "*" * (len(key) - 12) + key[-4:]


def missing_api_key() -> ChatError:
    return ChatError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using "
        "Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) "
        "if you're accessing the API from your browser and are prompted for a username. You can obtain an "
        f"API key from {KEYS_URL}.",
    )


def incorrect_api_key(key: str) -> ChatError:
    return ChatError(
        401,
        f"Incorrect API key provided: {mask_key(key)}. You can find your API key at {KEYS_URL}.",
        code="invalid_api_key",
    )


def malformed_json() -> ChatError:
    return ChatError(
        400,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your "
        "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid "
        "JSON. If you have trouble figuring out how to fix this, please contact us through our help center "
        "at help.openai.com.)",
    )


def missing_model() -> ChatError:
    return ChatError(400, "you must provide a model parameter")


def missing_parameter(name: str) -> ChatError:
    return ChatError(400, f"Missing required parameter: '{name}'.", name, "missing_required_parameter")


def empty_array(name: str) -> ChatError:
    return ChatError(
        400,
        f"Invalid '{name}': empty array. Expected an array with minimum length 1, but got an empty array "
        "instead.",
        name,
        "empty_array",
    )


def array_too_long(name: str, maximum: int, length: int) -> ChatError:
    return ChatError(
        400,
        f"Invalid '{name}': array too long. Expected an array with maximum length {maximum}, but got an "
        f"array with length {length} instead.",
        name,
        "array_above_max_length",
    )


def context_length_exceeded(window: int, in_messages: int, in_tools: int) -> ChatError:
    """The live wording (public captures, 2023–2025): the tools ("functions") are named only when
    there are some."""
    if in_tools:
        said = (
            f"your messages resulted in {counted(in_messages + in_tools, 'token')} ({in_messages} in the "
            f"messages, {in_tools} in the functions). Please reduce the length of the messages or functions."
        )
    else:
        resulted = counted(in_messages, "token")
        said = f"your messages resulted in {resulted}. Please reduce the length of the messages."
    return ChatError(
        400,
        f"This model's maximum context length is {counted(window, 'token')}. However, {said}",
        "messages",
        "context_length_exceeded",
    )


def tool_without_calls(index: int) -> ChatError:
    return ChatError(
        400,
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
        "'tool_calls'.",
        f"messages.[{index}].role",
    )


def unanswered_tool_calls(index: int, call_ids: list[str]) -> ChatError:
    return ChatError(
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: " + ", ".join(call_ids),
        f"messages.[{index}].role",
    )


def assistant_without_content(index: int) -> ChatError:
    return ChatError(
        400,
        "Invalid value for 'content': expected a string, got null.",
        f"messages.[{index}].content",
    )


def invalid_function_parameters(index: int, name: str, detail: str, legacy: bool = False) -> ChatError:
    """A function's ``parameters`` refused: at ``tools[i].function.parameters``, or at the legacy
    ``functions[i].parameters`` when the request declared ``functions``."""
    return ChatError(
        400,
        f"Invalid schema for function '{name}': {detail}",
        f"functions[{index}].parameters" if legacy else f"tools[{index}].function.parameters",
        "invalid_function_parameters",
    )


def tool_choice_without_tools() -> ChatError:
    return ChatError(
        400,
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        "tool_choice",
    )


def parallel_tool_calls_without_tools() -> ChatError:
    # The live body (openai/swarm#30): param ``parallel_tool_calls``, code null.
    return ChatError(
        400,
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are "
        "specified.",
        "parallel_tool_calls",
    )


def max_tokens_unsupported() -> ChatError:
    # The live body on o-series and gpt-5 models (microsoft/vscode-copilot-release#8065,
    # griptape-ai/ComfyUI-Griptape#312).
    return ChatError(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' "
        "instead.",
        "max_tokens",
        "unsupported_parameter",
    )


def temperature_unsupported_value(value: float) -> ChatError:
    # The live body on gpt-5 and o3 (owndev/Open-WebUI-Functions#98, glebm/i18n-tasks#672,
    # BeehiveInnovations/pal-mcp-server#78): the number shown as sent (0, 0.0, 0.01).
    return ChatError(
        400,
        f"Unsupported value: 'temperature' does not support {value!r} with this model. Only the default (1) "
        "value is supported.",
        "temperature",
        "unsupported_value",
    )


def temperature_unsupported_parameter() -> ChatError:
    # The live body on o3-mini (BeehiveInnovations/pal-mcp-server#78, lobehub/lobehub#5690).
    return ChatError(
        400,
        "Unsupported parameter: 'temperature' is not supported with this model.",
        "temperature",
        "unsupported_parameter",
    )


def stop_unsupported() -> ChatError:
    # The live body on gpt-5, gpt-5-mini and gpt-5-nano (huggingface/smolagents#1662, #1671).
    return ChatError(
        400,
        "Unsupported parameter: 'stop' is not supported with this model.",
        "stop",
        "unsupported_parameter",
    )


def unknown_tool_choice(name: str, param: str) -> ChatError:
    # Wording ours: no public report of the live message was found.
    return ChatError(
        400,
        f"Invalid value for '{param}': no function named '{name}' was specified in the 'tools' parameter.",
        param,
        "invalid_value",
    )


def functions_with_tools() -> ChatError:
    # Wording ours: whether the live service refuses both or prefers one is not public; a client that
    # sends both has mixed two APIs, and a clear refusal beats silently dropping one.
    return ChatError(
        400,
        "Invalid parameter: 'functions' (deprecated) and 'tools' cannot both be specified; use 'tools'.",
        "functions",
        "invalid_value",
    )


def function_call_without_functions() -> ChatError:
    # Wording ours, after the live 'tool_choice' message.
    return ChatError(
        400,
        "Invalid value for 'function_call': 'function_call' is only allowed when 'functions' are specified.",
        "function_call",
    )


def unknown_function_call(name: str) -> ChatError:
    # Wording ours, as for an unknown 'tool_choice'.
    return ChatError(
        400,
        f"Invalid value for 'function_call': no function named '{name}' was specified in the 'functions'"
        " parameter.",
        "function_call",
        "invalid_value",
    )


def stream_options_without_stream() -> ChatError:
    return ChatError(
        400, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options"
    )


def unsupported_image(param: str) -> ChatError:
    return ChatError(
        400,
        # The live wording, its word order included.
        "You uploaded an unsupported image. Please make sure your image has of one the following formats: "
        "['png', 'jpeg', 'gif', 'webp'].",
        param,
        "invalid_image_format",
    )


def model_not_found(model: str) -> ChatError:
    return ChatError(
        404,
        f"The model `{model}` does not exist or you do not have access to it.",
        code="model_not_found",
    )


def arguments_unbuildable(detail: str) -> ChatError:
    # Ours: the live service never fails this way (its model writes arguments whatever the schema).
    return ChatError(
        500,
        f"mockengine could not build function arguments valid for the declared schema: {detail}",
        type="server_error",
    )


def json_word_missing() -> ChatError:
    return ChatError(
        400,
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
        "'json_object'.",
        "messages",
    )


def invalid_response_schema(name: str, detail: str) -> ChatError:
    # Wording after the tools' "Invalid schema for function …" message.
    return ChatError(
        400,
        f"Invalid schema for response_format '{name}': {detail}",
        "response_format",
        "invalid_json_schema",
    )


# The Responses API (``/v1/responses``): the live wording where public reports quote it, else ours (said).
JSON_WORD_MISSING_RESPONSES = (
    "Response input messages must contain the word 'json' in some form to use 'text.format' of type "
    "'json_object'."
)


def integer_below_minimum(param: str, minimum: int, value: int) -> ChatError:
    return ChatError(
        400,
        f"Invalid '{param}': integer below minimum value. Expected a value >= {minimum}, but got {value} "
        "instead.",
        param,
        "integer_below_min_value",
    )


def previous_response_not_found(response_id: str) -> ChatError:
    # The live service's answer for an id it does not have; mockengine keeps no responses.
    return ChatError(
        400,
        f"Previous response with id '{response_id}' not found.",
        "previous_response_id",
        "previous_response_not_found",
    )


def unsupported_by_mockengine(param: str, what: str) -> ChatError:
    # Ours: the live service supports these; mockengine says plainly that it does not.
    return ChatError(400, f"mockengine does not support {what} ('{param}') in the Responses API.", param)


def unsupported_tool(param: str, kind: str) -> ChatError:
    # Ours: hosted tools (web_search, file_search, …) and custom tools are not emulated.
    return ChatError(
        400,
        f"Invalid value: '{kind}'. mockengine's Responses API supports only tools of type 'function'.",
        param,
        "invalid_value",
    )


def item_not_found(item_id: str) -> ChatError:
    # The live answer to an ``item_reference`` (or an echoed item id) it does not keep, public captures
    # (vercel/ai#7543, router-for-me/CLIProxyAPI#2381: 404, param "input", code null).
    return ChatError(
        404,
        f"Item with id '{item_id}' not found. Items are not persisted when `store` is set to false. Try "
        "again with `store` set to true, or remove this item from your input.",
        "input",
    )


def unsupported_input_item(param: str, kind: str) -> ChatError:
    # Ours: item types mockengine does not read (hosted tool calls, …).
    return ChatError(
        400,
        f"Invalid value: '{kind}'. mockengine's Responses API reads input items of type 'message', "
        "'function_call', 'function_call_output', 'item_reference' and 'reasoning' (passed over), and "
        "content parts 'input_text', 'output_text', 'refusal', 'input_image', 'input_file' and "
        "'input_audio'.",
        param,
        "invalid_value",
    )


def invalid_enum(param: str, value: object, allowed: tuple[str, ...]) -> ChatError:
    supported = ", ".join(f"'{a}'" for a in allowed)
    return ChatError(
        400,
        f"Invalid value: '{json_text(value)}'. Supported values are: {supported}.",
        param,
        "invalid_value",
    )


def no_tool_output(call_id: str) -> ChatError:
    return ChatError(400, f"No tool output found for function call {call_id}.", "input")


def no_tool_call(call_id: str) -> ChatError:
    return ChatError(400, f"No tool call found for function call output with call_id {call_id}.", "input")


# Audio (``chat.audio``). Verbatim where public captures quote the live service (said below), else ours.
def audio_required_by_model() -> ChatError:
    # Verbatim (captures of gpt-4o-audio-preview / gpt-4o-mini-audio-preview asked for text only).
    return ChatError(
        400,
        "This model requires that either input content or output modality contain audio.",
        "model",
        "invalid_value",
    )


def audio_output_unsupported(model: str) -> ChatError:
    # Ours: no public capture of a text model asked for audio output was found.
    return ChatError(
        400,
        f"The model '{model}' does not support audio output: 'modalities' may include 'audio' only for an "
        "audio model such as gpt-4o-audio-preview or gpt-audio.",
        "modalities",
        "invalid_value",
    )


def audio_format_not_streamable(fmt: str) -> ChatError:
    # Verbatim (captures of gpt-audio-mini asked for wav/mp3 with stream=true).
    return ChatError(
        400,
        f"Unsupported value: 'audio.format' does not support '{fmt}' when stream=true. Supported values "
        "are: 'pcm16'.",
        "audio.format",
        "unsupported_value",
    )


def undecodable_input_audio(param: str) -> ChatError:
    # The live transcription endpoint's wording for audio it cannot read; param and code ours.
    return ChatError(
        400, "The audio file could not be decoded or its format is not supported.", param, "invalid_value"
    )


def input_audio_too_long(param: str, limit_s: int) -> ChatError:
    # The live transcription models' wording for audio past their limit ("audio duration 1830.53 seconds
    # is longer than 1400 seconds which is the maximum for this model"); decoding stops at the limit, so
    # no exact duration. Param ours.
    return ChatError(
        400,
        f"audio duration is longer than {counted(limit_s, 'second')} which is the maximum for this model",
        param,
        "invalid_value",
    )


def unknown_audio_id(index: int, audio_id: str) -> ChatError:
    # Ours: the live service's answer for an expired or foreign audio id is not public.
    return ChatError(
        400,
        f"Audio with id '{audio_id}' not found: it was not given by this engine, or it expired.",
        f"messages.[{index}].audio.id",
        "invalid_value",
    )


def response_not_found(response_id: str) -> ChatError:
    # The live wording for GET / DELETE of a response it does not have (public captures).
    return ChatError(404, f"Response with id '{response_id}' not found.")


def integer_above_maximum(param: str, maximum: int, value: int) -> ChatError:
    return ChatError(
        400,
        f"Invalid '{param}': integer above maximum value. Expected a value <= {maximum}, but got {value} "
        "instead.",
        param,
        "integer_above_max_value",
    )


def invalid_integer(param: str, given: str) -> ChatError:
    # Wording after the live invalid_type errors of body fields.
    return ChatError(
        400,
        f"Invalid type for '{param}': expected an integer, but got a string instead.",
        param,
        "invalid_type",
    )


def logit_bias_key(key: str) -> ChatError:
    # The live wording for a key that is no token id (quoted in OkGoDoIt/OpenAI-API-dotnet#163).
    return ChatError(
        400,
        f"Invalid key in 'logit_bias': {key}. You should only be submitting non-negative integers.",
        "logit_bias",
    )


def logit_bias_value() -> ChatError:
    # A bias outside -100..100 (or not a number) is refused with param "logit_bias"; this wording is the
    # one developers report, not checked against the live service here.
    return ChatError(
        400,
        "Invalid value for 'logit_bias': Logit bias value is invalid or outside of the acceptable range.",
        "logit_bias",
        "invalid_value",
    )


def top_logprobs_without_logprobs() -> ChatError:
    # The live service refuses top_logprobs unless logprobs is true; its wording is not public: ours.
    return ChatError(
        400,
        "Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is given.",
        "top_logprobs",
        "invalid_value",
    )


def number_below_minimum(param: str, minimum: float, value: float) -> ChatError:
    # The live wording of a number field below its range (``temperature``, ``speed``).
    return ChatError(
        400,
        f"Invalid '{param}': decimal below minimum value. Expected a value >= {minimum}, but got {value} "
        "instead.",
        param,
        "decimal_below_min_value",
    )


def number_above_maximum(param: str, maximum: float, value: float) -> ChatError:
    return ChatError(
        400,
        f"Invalid '{param}': decimal above maximum value. Expected a value <= {maximum}, but got {value} "
        "instead.",
        param,
        "decimal_above_max_value",
    )
