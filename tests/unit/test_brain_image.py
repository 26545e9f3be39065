"""describe_image: data URL parsing, the PNG/JPEG-only rule (WebP and still GIF too on the Chat Completions
side), and colour facts from real Pillow images."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import pytest
from PIL import Image

from mockengine.brain.image import ImageError, colour_name, describe_chat_image, describe_image


def data_url(image: Image.Image, fmt: str = "PNG", media_type: str | None = None) -> str:
    buffer = io.BytesIO()
    image.save(buffer, fmt)
    media = media_type or f"image/{fmt.lower()}"
    return f"data:{media};base64,{base64.b64encode(buffer.getvalue()).decode('ascii')}"


def solid(rgb: tuple[int, int, int], size: tuple[int, int] = (40, 30), mode: str = "RGB") -> Image.Image:
    return Image.new(mode, size, rgb)


@pytest.mark.parametrize(
    ("rgb", "name"),
    [
        ((255, 0, 0), "red"),
        ((128, 0, 0), "red"),
        ((0, 255, 0), "green"),
        ((0, 0, 255), "blue"),
        ((255, 255, 255), "white"),
        ((0, 0, 0), "black"),
        ((128, 128, 128), "grey"),
        ((255, 255, 0), "yellow"),
        ((255, 165, 0), "orange"),
        ((139, 69, 19), "brown"),
        ((255, 192, 203), "pink"),
        ((128, 0, 128), "purple"),
        ((0, 255, 255), "cyan"),
    ],
)
def test_colour_name_of_named_colours(rgb: tuple[int, int, int], name: str) -> None:
    assert colour_name(*rgb) == name


@pytest.mark.parametrize(
    ("rgb", "name"),
    [
        ((255, 0, 0), "red"),
        ((0, 200, 0), "green"),
        ((0, 0, 255), "blue"),
        ((255, 255, 255), "white"),
        ((0, 0, 0), "black"),
    ],
)
@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_solid_images_are_seen_in_their_colour(rgb: tuple[int, int, int], name: str, fmt: str) -> None:
    facts = describe_image(data_url(solid(rgb), fmt))
    assert facts.dominant_colour == name
    assert facts.dominant_share > 0.95
    assert (facts.width, facts.height) == (40, 30)


def test_brightness_is_mean_luma() -> None:
    assert describe_image(data_url(solid((255, 255, 255)))).brightness == pytest.approx(1.0)
    assert describe_image(data_url(solid((0, 0, 0)))).brightness == pytest.approx(0.0)
    assert describe_image(data_url(solid((255, 0, 0)))).brightness == pytest.approx(0.299, abs=0.01)


def test_mixed_image_reports_majority_colour_and_its_share() -> None:
    image = solid((0, 0, 255), size=(100, 100))
    image.paste((255, 0, 0), (0, 0, 70, 100))
    facts = describe_image(data_url(image))
    assert facts.dominant_colour == "red"
    assert facts.dominant_share == pytest.approx(0.7, abs=0.03)


def test_large_jpeg_keeps_its_full_size_in_the_facts() -> None:
    facts = describe_image(data_url(solid((200, 0, 0), size=(1200, 900)), "JPEG", "image/jpg"))
    assert (facts.width, facts.height, facts.dominant_colour) == (1200, 900, "red")


def test_palette_alpha_and_greyscale_modes() -> None:
    palette = Image.new("P", (10, 10))
    palette.putpalette([0, 0, 255] * 256)
    assert describe_image(data_url(palette)).dominant_colour == "blue"
    transparent = Image.new("RGBA", (10, 10), (255, 0, 0, 0))
    assert describe_image(data_url(transparent)).dominant_colour == "white"
    opaque = Image.new("RGBA", (10, 10), (0, 255, 0, 255))
    assert describe_image(data_url(opaque)).dominant_colour == "green"
    assert describe_image(data_url(Image.new("L", (10, 10), 10))).dominant_colour == "black"
    sixteen_bit = Image.new("I;16", (10, 10), 32768)
    assert describe_image(data_url(sixteen_bit)).dominant_colour == "grey"


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("https://example.org/red.png", "expected a data URL"),
        ("data:image/gif;base64,R0lGODlhAQABAAAAACw=", "unsupported image type 'image/gif'"),
        ("data:image/webp;base64,UklGRg==", "unsupported image type 'image/webp'"),
        ("data:image/png,rawbytes", "must be base64"),
        ("data:image/png;base64,@@@not-base64@@@", "not valid base64"),
        ("data:image/png;base64,", "empty"),
        (
            "data:image/png;base64," + base64.b64encode(b"definitely not a png").decode(),
            "could not be decoded",
        ),
    ],
)
def test_bad_data_urls_raise_client_facing_errors(url: str, fragment: str) -> None:
    with pytest.raises(ImageError, match=fragment):
        describe_image(url)


def test_media_type_must_match_the_encoded_format() -> None:
    jpeg_as_png = data_url(solid((255, 0, 0)), "JPEG", "image/png")
    with pytest.raises(ImageError, match="the data is JPEG, but the data URL says PNG"):
        describe_image(jpeg_as_png)


def test_truncated_png_is_undecodable() -> None:
    url = data_url(solid((255, 0, 0), size=(64, 64)))
    payload = base64.b64decode(url.split(",", 1)[1])
    truncated = "data:image/png;base64," + base64.b64encode(payload[: len(payload) // 2]).decode()
    with pytest.raises(ImageError, match="could not be decoded"):
        describe_image(truncated)


@pytest.mark.parametrize("fmt", ["WEBP", "GIF", "PNG", "JPEG"])
def test_chat_images_may_also_be_webp_or_gif(fmt: str) -> None:
    url = data_url(solid((0, 0, 255)), fmt)
    assert describe_chat_image(url).dominant_colour == "blue"
    if fmt in ("WEBP", "GIF"):
        with pytest.raises(ImageError, match=f"unsupported image type 'image/{fmt.lower()}'"):
            describe_image(url)


def test_chat_images_refuse_animated_gifs_and_other_types() -> None:
    frames = [solid((255, 0, 0)), solid((0, 0, 255))]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:])
    animated = "data:image/gif;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    with pytest.raises(ImageError, match="animated GIFs are not supported"):
        describe_chat_image(animated)
    with pytest.raises(ImageError, match="unsupported image type 'image/heic'"):
        describe_chat_image("data:image/heic;base64,AAAA")


def test_image_error_is_a_value_error() -> None:
    assert issubclass(ImageError, ValueError)


def png_header_only(width: int, height: int) -> str:
    """A PNG whose IHDR claims ``width``×``height``: enough for the size check, nothing to decode."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    png = b"\x89PNG\r\n\x1a\n" + body
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def test_images_over_the_pixel_limit_are_refused_before_decoding() -> None:
    with pytest.raises(ImageError, match="too large \\(10000x5000 pixels\\)"):
        describe_image(png_header_only(10_000, 5_000))
