import { describe, expect, it } from "vitest";
import { openSealed, seal, SealedBoxError } from "./sealed-box.server";

describe("sealed box", () => {
  it("opens what it sealed, with the current or an older secret, and only for the same purpose", () => {
    const sealed = seal("gate code 4821", ["old-secret-0123456789abcdef0123456789"], "email-outbox");
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain("4821");
    expect(openSealed(sealed, ["new-secret-x", "old-secret-0123456789abcdef0123456789"], "email-outbox")).toBe("gate code 4821");
    expect(() => openSealed(sealed, ["old-secret-0123456789abcdef0123456789"], "other-purpose")).toThrow(SealedBoxError);
    expect(() => openSealed(sealed, ["someone-else"], "email-outbox")).toThrow(SealedBoxError);
    // Flip the ciphertext's first character (its last one may carry only padding bits, which decode
    // to the same bytes whatever they are).
    const [v, iv, tag, ct] = sealed.split(".");
    const tampered = [v, iv, tag, (ct![0] === "A" ? "B" : "A") + ct!.slice(1)].join(".");
    expect(() => openSealed(tampered, ["old-secret-0123456789abcdef0123456789"], "email-outbox")).toThrow(SealedBoxError);
  });
});
