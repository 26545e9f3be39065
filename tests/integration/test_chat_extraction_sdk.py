"""Over the wire, with the official ``openai`` SDK on Chat Completions: extraction as instructor (1.17)
and LlamaIndex (``llama-index-llms-openai`` 0.8) ask for it. instructor's default mode forces a tool
named after the model (``User``, "Correctly extracted `User` with all the required parameters with
correct types"); LlamaIndex's ``structured_predict`` forces one too, and prompts often start with a verb
("Extract: …"). A person's name opening the words was dropped from the forced call (``name: "Name"``),
and a number after "Extract:" was not read for the ``json_schema`` answer (``age`` made up: 6)
(docs/client-compatibility.md)."""

from __future__ import annotations

import json

import pytest
from openai import AsyncOpenAI
from pydantic import BaseModel

DESCRIPTION = "Correctly extracted `User` with all the required parameters with correct types"  # instructor's
USER = {
    "type": "object",
    "properties": {"name": {"title": "Name", "type": "string"}, "age": {"title": "Age", "type": "integer"}},
    "required": ["name", "age"],
}
FORCED = {
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "User",
                "description": DESCRIPTION,
                "parameters": USER,
            },
        }
    ],
    "tool_choice": {"type": "function", "function": {"name": "User"}},
}
SCHEMA = {"response_format": {"type": "json_schema", "json_schema": {"name": "User", "schema": USER}}}
WORDS = [
    "John Doe is 30 years old.",
    "Extract: John Doe is 30 years old.",
    "My name is John Doe and I am 30.",
]


async def _extract(engine, text: str, how: dict) -> dict:
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": text}], **how
    )
    message = completion.choices[0].message
    if message.tool_calls:
        return json.loads(message.tool_calls[0].function.arguments)
    return json.loads(message.content or "")


@pytest.mark.parametrize("text", WORDS)
@pytest.mark.parametrize("how", [FORCED, SCHEMA], ids=["forced_tool", "json_schema"])
async def test_the_person_and_age_said_are_extracted(engine, text, how) -> None:
    assert await _extract(engine, text, how) == {"name": "John Doe", "age": 30}


async def test_a_word_opening_the_sentence_is_still_no_city(engine) -> None:
    """The rule the forced call keeps: "Thanks" opening the words is no city of a weather report."""
    report = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "summary": {"type": "string"}},
        "required": ["city", "summary"],
    }
    how = {
        "tools": [{"type": "function", "function": {"name": "report_weather", "parameters": report}}],
        "tool_choice": {"type": "function", "function": {"name": "report_weather"}},
    }
    assert (await _extract(engine, "Thanks, that was helpful.", how))["city"] != "Thanks"


@pytest.mark.parametrize(
    ("asked", "reported"),
    [
        ("gpt-4o-mini", "gpt-4o-mini-2024-07-18"),
        ("gpt-4o", "gpt-4o-2024-08-06"),
        ("gpt-4.1", "gpt-4.1-2025-04-14"),
        ("gpt-5-mini", "gpt-5-mini-2025-08-07"),
        ("gpt-4o-2024-11-20", "gpt-4o-2024-11-20"),
        ("mockengine-default", "mockengine-default"),
        ("gpt-5.1", "gpt-5.1"),  # (a local model's name, served by --any-chat-model: test_chat_model_names)
    ],
)
async def test_the_model_reported_is_the_snapshot_the_alias_names(engine, asked, reported) -> None:
    """AutoGen (``autogen-ext`` 0.7) resolves ``gpt-4o-mini`` to ``gpt-4o-mini-2024-07-18`` itself and
    warns on every call whose response's ``model`` differs ("Resolved model mismatch"): the live API
    reports the snapshot. A dated id, or a name the table has no snapshot for, is echoed."""
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    messages = [{"role": "user", "content": "Hello"}]
    completion = await client.chat.completions.create(model=asked, messages=messages)  # type: ignore[arg-type]
    chunks = [
        c async for c in await client.chat.completions.create(model=asked, messages=messages, stream=True)
    ]  # type: ignore[arg-type]
    response = await client.responses.create(model=asked, input="Hello")
    assert {completion.model, response.model, *(c.model for c in chunks)} == {reported}


MD_JSON_SYSTEM = f"""
            As a genius expert, your task is to understand the content and provide
            the parsed objects in json that match the following json_schema:\n\n
            {json.dumps({**USER, "title": "User"}, indent=2)}

            Make sure to return an instance of the JSON, not the schema itself
"""


async def test_json_asked_for_in_words_with_its_schema_is_written(engine) -> None:
    """instructor's ``Mode.MD_JSON`` (no ``response_format``, no tools): the schema in the system message,
    "Return the correct JSON response within a ```json codeblock" after the words. The participant
    answered in words; instructor retried and raised."""
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    asked = "Return the correct JSON response within a ```json codeblock. not the JSON_SCHEMA"  # instructor's
    user = f"John Doe is 30 years old.\n\n{asked}"
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": MD_JSON_SYSTEM}, {"role": "user", "content": user}],
    )
    content = completion.choices[0].message.content or ""
    assert content.startswith("```json\n") and content.endswith("\n```"), content
    assert json.loads(content.removeprefix("```json\n").removesuffix("\n```")) == {
        "name": "John Doe",
        "age": 30,
    }


async def test_langchain_pydantic_output_parser_gets_its_json(engine) -> None:
    """LangChain's ``PydanticOutputParser`` in a chain (``prompt | llm | parser``), as its docs teach:
    the format instructions (the schema, "formatted as a JSON instance") in the prompt, no
    ``response_format``. The answer in words raised ``OutputParserException``."""
    from langchain_core.output_parsers import PydanticOutputParser
    from langchain_core.prompts import PromptTemplate
    from langchain_openai import ChatOpenAI
    from pydantic import BaseModel

    class Person(BaseModel):
        name: str
        age: int

    eng = await engine()
    llm = ChatOpenAI(model="gpt-4o-mini", base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)  # type: ignore[arg-type]
    parser = PydanticOutputParser(pydantic_object=Person)
    prompt = PromptTemplate(
        template="Answer the user query.\n{format_instructions}\n{query}\n",
        input_variables=["query"],
        partial_variables={"format_instructions": parser.get_format_instructions()},
    )
    person = await (prompt | llm | parser).ainvoke({"query": "John Doe is 30 years old."})
    assert person == Person(name="John Doe", age=30)


async def test_a_schema_in_the_words_without_json_asked_for_is_answered_in_words(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    system = f"Our records look like this: {json.dumps(USER)}. Be friendly."
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": "Hello, how are you?"}],
    )
    content = completion.choices[0].message.content or ""
    assert content and not content.lstrip().startswith(("{", "```")), content


@pytest.mark.parametrize(
    "question",
    [
        "Can you explain what this JSON schema validates? {schema}",
        "Is this a valid JSON Schema?\n{schema}",
        "My API returns JSON. Why does this schema reject a missing age? {schema}",
    ],
)
async def test_a_question_about_a_json_schema_is_answered_in_words(engine, question) -> None:
    """The word JSON beside a schema the user asks about is no request for JSON: "Can you explain what
    this JSON schema validates? {…}" got an instance of the schema, {"name": "Here's the short …"}."""
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": question.format(schema=json.dumps(USER))}],
    )
    content = completion.choices[0].message.content or ""
    assert content and not content.lstrip().startswith(("{", "```")), content


class _Address(BaseModel):
    city: str
    zip: str | None


class _Resident(BaseModel):
    name: str
    age: int
    address: _Address


async def test_a_nested_pydantic_model_parsed_takes_the_place_said(engine) -> None:
    """``client.chat.completions.parse`` / ``client.responses.parse`` with a nested Pydantic model: the SDK
    sends the inner model as ``{"$ref": "#/$defs/_Address"}``. The words filled it ("Paris") when the same
    object was written inline, but through the ``$ref`` it kept the builder's filler (``city`` and ``zip``
    both "You said Alice is 30, …")."""
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    said = "Alice is 30 and lives in Paris."
    completion = await client.chat.completions.parse(
        model="gpt-4o", messages=[{"role": "user", "content": said}], response_format=_Resident
    )
    expected = _Resident(name="Alice", age=30, address=_Address(city="Paris", zip=None))
    assert completion.choices[0].message.parsed == expected
    response = await client.responses.parse(model="gpt-4o", input=said, text_format=_Resident)
    assert response.output_parsed == expected
