import { describe, expect, it } from "vitest";
import { ALT_MESSAGES, mediaPath, mediaSrcSet, parseMediaFileName, readAltText, refuseImage, UPLOAD_MESSAGES, variantWidths } from "./media";

const sha = "a".repeat(64);

describe("the widths an upload is stored at", () => {
  it.each([
    [200, [200]],
    [240, [240]],
    [300, [240, 300]],
    [1000, [240, 480, 960, 1000]],
    [1920, [240, 480, 960, 1440, 1920]],
    [6000, [240, 480, 960, 1440, 1920]],
  ])("%i px wide → %j", (width, widths) => {
    expect(variantWidths(width)).toEqual(widths);
  });
});

describe("what an upload must be", () => {
  it.each([
    ["jpeg", 1200, 800, null],
    ["png", 200, 50, null],
    ["gif", 8000, 5000, null],
    ["svg", 1000, 1000, UPLOAD_MESSAGES.svg],
    ["tiff", 1000, 1000, UPLOAD_MESSAGES.notImage],
    ["heif", 1000, 1000, UPLOAD_MESSAGES.notImage],
    [undefined, undefined, undefined, UPLOAD_MESSAGES.notImage],
    ["png", 199, 1000, UPLOAD_MESSAGES.tooNarrow],
    ["png", 8001, 100, UPLOAD_MESSAGES.tooBig],
    ["png", 300, 8001, UPLOAD_MESSAGES.tooBig],
    ["png", 8000, 8000, UPLOAD_MESSAGES.tooBig],
  ])("%s %i×%i → %s", (format, width, height, message) => {
    expect(refuseImage(format, width, height)).toBe(message);
  });
});

describe("media addresses", () => {
  it("names a stored size and reads it back", () => {
    expect(mediaPath(sha, 480)).toBe(`/media/${sha}-480.webp`);
    expect(parseMediaFileName(`${sha}-480.webp`)).toEqual({ sha256: sha, width: 480 });
    for (const bad of [`${sha}-480.png`, `${sha}.webp`, `${sha.slice(1)}-480.webp`, `../${sha}-480.webp`, `${sha}-480.webp/x`, `${sha.toUpperCase()}-480.webp`]) {
      expect(parseMediaFileName(bad)).toBeNull();
    }
  });

  it("gives an uploaded image its srcset and other images none", () => {
    expect(mediaSrcSet({ src: mediaPath(sha, 1000), width: 1000 })).toBe(
      `/media/${sha}-240.webp 240w, /media/${sha}-480.webp 480w, /media/${sha}-960.webp 960w, /media/${sha}-1000.webp 1000w`,
    );
    expect(mediaSrcSet({ src: "/images/photo.jpg", width: 1000 })).toBeNull();
    expect(mediaSrcSet({ src: mediaPath(sha, 1000), width: null })).toBeNull();
    expect(mediaSrcSet({ src: mediaPath(sha, 1000), width: 900 })).toBeNull();
  });
});

describe("the text alternative", () => {
  it.each([
    [{ alt: " Drive-up units ", decorative: false }, { ok: true, alt: "Drive-up units" }],
    [{ alt: "", decorative: true }, { ok: true, alt: "" }],
    [{ alt: "ignored", decorative: true }, { ok: true, alt: "" }],
    [{ alt: "  ", decorative: false }, { ok: false, message: ALT_MESSAGES.missing }],
    [{ alt: "x".repeat(301), decorative: false }, { ok: false, message: ALT_MESSAGES.tooLong }],
  ])("%j → %j", (input, out) => {
    expect(readAltText(input)).toEqual(out);
  });
});
