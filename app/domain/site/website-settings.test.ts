import { describe, expect, it } from "vitest";
import { componentProp, componentSettingSchema, globalStylesSchema, globalStylesToCss, type ComponentSetting } from "./website-settings";

const nav: ComponentSetting = {
  name: "NavbarClassic",
  props: [
    { name: "main_menu", value: "Main Menu" },
    { name: "announcement_bar_enabled", value: true },
    { name: "max_items", value: 6 },
  ],
};

describe("componentProp", () => {
  it.each([
    ["main_menu", "x", "Main Menu"],
    ["announcement_bar_enabled", false, true],
    ["max_items", 0, 6],
    ["missing", "fallback", "fallback"],
    // A prop of another type than the fallback's is ignored.
    ["main_menu", false, false],
    ["announcement_bar_enabled", "no", "no"],
  ] as const)("%s (fallback %j) → %j", (name, fallback, expected) => {
    expect(componentProp(nav, name, fallback)).toBe(expected);
  });
});

describe("componentSettingSchema", () => {
  it.each([
    [nav, true],
    [{ name: "FooterTwoMenus", props: [] }, true],
    [{ name: "", props: [] }, false],
    [{ name: "X" }, false],
    [{ name: "X", props: [{ name: "a", value: null }] }, false],
    [{ name: "X", props: [{ name: "a", value: { nested: 1 } }] }, false],
  ])("%j valid: %s", (value, ok) => {
    expect(componentSettingSchema.safeParse(value).success).toBe(ok);
  });
});

const styles = {
  primary_color: "#14457a",
  secondary_color: "#0d2e52",
  accent_color: "#f2b705",
  text_color: "#1f2933",
  background_color: "#ffffff",
  heading_font: "Source Sans 3",
  body_font: "Source Sans 3",
  button_background_color: "#14457a",
  button_text_color: "#ffffff",
  button_border_radius: "6px",
  nav_background_color: "#ffffff",
  nav_text_color: "#1f2933",
  footer_background_color: "#0d2e52",
  footer_text_color: "#ffffff",
};

describe("globalStylesToCss: global_styles as CSS custom properties", () => {
  it("writes one :root rule with every style field", () => {
    const css = globalStylesToCss(styles);
    expect(css.startsWith(":root {\n")).toBe(true);
    expect(css.endsWith("\n}")).toBe(true);
    for (const line of [
      "--color-primary: #14457a;",
      "--color-secondary: #0d2e52;",
      "--color-accent: #f2b705;",
      "--color-text: #1f2933;",
      "--color-background: #ffffff;",
      '--font-heading: "Source Sans 3", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;',
      '--font-body: "Source Sans 3", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;',
      "--button-background: #14457a;",
      "--button-text: #ffffff;",
      "--button-radius: 6px;",
      "--nav-background: #ffffff;",
      "--nav-text: #1f2933;",
      "--footer-background: #0d2e52;",
      "--footer-text: #ffffff;",
    ]) {
      expect(css).toContain(`  ${line}\n`);
    }
  });

  it.each([
    ["a colour that is not a hex colour", { ...styles, primary_color: "red;} body{display:none" }],
    ["a missing field", { ...styles, footer_text_color: undefined }],
    ["a radius with a unit we do not allow", { ...styles, button_border_radius: "6px; x" }],
    ["not an object", "nope"],
    ["null", null],
  ])("writes nothing for %s", (_name, value) => {
    expect(globalStylesToCss(value)).toBe("");
  });

  it("strips characters from font names that could break out of the rule", () => {
    const css = globalStylesToCss({ ...styles, heading_font: 'Evil"; } body { color: red' });
    expect(css).toContain('--font-heading: "Evil  body  color red", system-ui');
    expect(css.match(/}/g)).toHaveLength(1);
  });

  it("the schema reports which field is wrong, in plain words", () => {
    const result = globalStylesSchema.safeParse({ ...styles, accent_color: "#fff" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["accent_color"]);
    expect(result.error?.issues[0]?.message).toBe("Use a six-digit hex colour such as #1a4d8f");
  });
});
