"""Image understanding for ``input_image`` content: a handful of facts a test can ask about.

The real service accepts PNG and JPEG data URLs only (reference §5: "Images: PNG/JPEG data URI only").
The image is decoded with Pillow, scaled down to at most 64×64 and every pixel is classed into a plain
colour name by HSV rules, so pure, dark and light shades of a colour all get the name a person would use.
"""

from __future__ import annotations

import base64
import binascii
import colorsys
import io
from collections import Counter
from typing import Any

from PIL import Image, UnidentifiedImageError

from mockengine.brain.model import COLOUR_NAMES, ImageFacts

MAX_IMAGE_PIXELS = 40_000_000
_THUMBNAIL_SIZE = (64, 64)
# The Realtime API takes PNG and JPEG data URLs (reference section 7); Chat Completions also takes WebP
# and non-animated GIF (OpenAI's vision guide; its refusal names 'png', 'jpeg', 'gif', 'webp').
_FORMAT_BY_MEDIA_TYPE = {"image/png": "PNG", "image/jpeg": "JPEG", "image/jpg": "JPEG"}
_CHAT_FORMAT_BY_MEDIA_TYPE = {**_FORMAT_BY_MEDIA_TYPE, "image/webp": "WEBP", "image/gif": "GIF"}

# Hue bands in degrees, checked in order; the first band whose upper bound exceeds the hue wins.
_HUE_BANDS: tuple[tuple[float, str], ...] = (
    (15.0, "red"),
    (45.0, "orange"),
    (70.0, "yellow"),
    (165.0, "green"),
    (200.0, "cyan"),
    (260.0, "blue"),
    (315.0, "purple"),
    (345.0, "pink"),
    (360.0, "red"),
)


class ImageError(ValueError):
    """The image cannot be used; the message is fit to send to the client."""


def describe_image(data_url: str) -> ImageFacts:
    """Decode a ``data:image/png|jpeg;base64,…`` URL (a Realtime ``input_image``) and describe it.

    Raises ``ImageError`` when the text is not a data URL, the media type is not PNG or JPEG, the payload is
    not valid base64, the bytes are not a decodable image of the stated type, or it exceeds 40 MP.
    """
    return _describe(data_url, _FORMAT_BY_MEDIA_TYPE)


def describe_chat_image(data_url: str) -> ImageFacts:
    """``describe_image`` for a Chat Completions ``image_url``: PNG, JPEG, WebP or non-animated GIF."""
    return _describe(data_url, _CHAT_FORMAT_BY_MEDIA_TYPE)


def _describe(data_url: str, formats: dict[str, str]) -> ImageFacts:
    media_type, payload = _split_data_url(data_url, formats)
    image, (width, height) = _open_image(payload, formats[media_type])
    rgb = _to_rgb(image)
    rgb.thumbnail(_THUMBNAIL_SIZE, Image.Resampling.BOX)
    colours = rgb.getcolors(maxcolors=_THUMBNAIL_SIZE[0] * _THUMBNAIL_SIZE[1]) or []
    return _facts_from_colours(width, height, colours)


def colour_name(red: int, green: int, blue: int) -> str:
    """The plain colour name (one of ``COLOUR_NAMES``) of one 8-bit RGB pixel."""
    hue, saturation, value = colorsys.rgb_to_hsv(red / 255, green / 255, blue / 255)
    if value < 0.18:
        return "black"
    if saturation < 0.18:
        if value > 0.82:
            return "white"
        return "black" if value < 0.25 else "grey"
    degrees = hue * 360
    name = next(band for limit, band in _HUE_BANDS if degrees < limit)
    if name == "red" and saturation < 0.5 and value > 0.7:
        return "pink"
    if name in ("orange", "yellow") and value < 0.6:
        return "brown"
    return name


def _split_data_url(data_url: str, formats: dict[str, str]) -> tuple[str, bytes]:
    if not isinstance(data_url, str) or not data_url.startswith("data:") or "," not in data_url:
        raise ImageError("Invalid image_url: expected a data URL such as 'data:image/png;base64,...'.")
    header, _, encoded = data_url[len("data:") :].partition(",")
    parts = [part.strip().lower() for part in header.split(";")]
    media_type = parts[0]
    if media_type not in formats:
        supported = ", ".join(dict.fromkeys("image/" + name.lower() for name in formats.values()))
        raise ImageError(
            f"Invalid image_url: unsupported image type '{media_type}'. Supported types: {supported}."
        )
    if "base64" not in parts[1:]:
        raise ImageError("Invalid image_url: the data URL must be base64-encoded (';base64,').")
    try:
        payload = base64.b64decode("".join(encoded.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ImageError("Invalid image_url: the data URL payload is not valid base64.") from exc
    if not payload:
        raise ImageError("Invalid image_url: the data URL payload is empty.")
    return media_type, payload


def _open_image(payload: bytes, expected_format: str) -> tuple[Image.Image, tuple[int, int]]:
    """Open and load the image; also returns its full size, which a JPEG draft decode would shrink."""
    try:
        image = Image.open(io.BytesIO(payload))
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise ImageError("Invalid image_url: the image data could not be decoded.") from exc
    if image.format != expected_format:
        raise ImageError(
            f"Invalid image_url: the data is {image.format or 'not an image'}, "
            f"but the data URL says {expected_format}."
        )
    if getattr(image, "n_frames", 1) > 1 and image.format == "GIF":
        raise ImageError("Invalid image_url: animated GIFs are not supported.")
    width, height = image.size
    if width * height > MAX_IMAGE_PIXELS:
        raise ImageError(f"Invalid image_url: the image is too large ({width}x{height} pixels).")
    if expected_format == "JPEG":
        # Lets libjpeg decode at a reduced scale; only the thumbnail is ever looked at.
        image.draft("RGB", _THUMBNAIL_SIZE)
    try:
        image.load()
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise ImageError("Invalid image_url: the image data could not be decoded.") from exc
    return image, (width, height)


def _to_rgb(image: Image.Image) -> Image.Image:
    """Flatten any mode to RGB; transparency is composited over white, as a page would show it."""
    if image.mode.startswith("I"):
        # 16-bit greyscale PNG: convert() would clip every value above 255 to white, so scale first.
        image = image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    if not has_alpha:
        return image.convert("RGB")
    rgba = image.convert("RGBA")
    background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(background, rgba).convert("RGB")


def _facts_from_colours(width: int, height: int, colours: list[tuple[int, Any]]) -> ImageFacts:
    """``colours`` is ``Image.getcolors()`` of an RGB image: (count, (r, g, b)) pairs."""
    counts: Counter[str] = Counter()
    luma_sum = 0.0
    total = 0
    for count, (red, green, blue) in colours:
        counts[colour_name(red, green, blue)] += count
        luma_sum += count * (0.299 * red + 0.587 * green + 0.114 * blue) / 255
        total += count
    if total == 0:
        return ImageFacts(width, height, "black", 0.0, 0.0)
    # Ties go to the earlier name in COLOUR_NAMES so the answer never depends on dict order.
    dominant = max(COLOUR_NAMES, key=lambda name: (counts[name], -COLOUR_NAMES.index(name)))
    return ImageFacts(
        width=width,
        height=height,
        dominant_colour=dominant,
        dominant_share=round(counts[dominant] / total, 4),
        brightness=round(luma_sum / total, 4),
    )
