import { z } from "zod";

/** A component choice of the site builder: its name and a list of props (spec §3 nav_component / footer_component). */
export const componentSettingSchema = z.object({
  name: z.string().min(1),
  props: z.array(z.object({ name: z.string().min(1), value: z.union([z.string(), z.boolean(), z.number()]) })),
});
export type ComponentSetting = z.infer<typeof componentSettingSchema>;

/** Reads one prop of a component setting with a fallback. */
export function componentProp<T extends string | boolean | number>(
  component: ComponentSetting,
  name: string,
  fallback: T,
): T {
  const found = component.props.find((p) => p.name === name);
  if (!found || typeof found.value !== typeof fallback) return fallback;
  return found.value as T;
}

const hexColour = z.string().regex(/^#[0-9a-fA-F]{6}$/, "Use a six-digit hex colour such as #1a4d8f");

/** global_styles: colour, font, button, nav and footer style fields. */
export const globalStylesSchema = z.object({
  primary_color: hexColour,
  secondary_color: hexColour,
  accent_color: hexColour,
  text_color: hexColour,
  background_color: hexColour,
  heading_font: z.string().trim().min(1, "Enter a font name.").max(100, "Use at most 100 characters."),
  body_font: z.string().trim().min(1, "Enter a font name.").max(100, "Use at most 100 characters."),
  button_background_color: hexColour,
  button_text_color: hexColour,
  button_border_radius: z.string().regex(/^\d+(px|rem|em)$/, "Use a whole number with px, rem or em, for example 6px."),
  nav_background_color: hexColour,
  nav_text_color: hexColour,
  footer_background_color: hexColour,
  footer_text_color: hexColour,
});
export type GlobalStyles = z.infer<typeof globalStylesSchema>;

const cssVariableNames: Record<keyof GlobalStyles, string> = {
  primary_color: "--color-primary",
  secondary_color: "--color-secondary",
  accent_color: "--color-accent",
  text_color: "--color-text",
  background_color: "--color-background",
  heading_font: "--font-heading",
  body_font: "--font-body",
  button_background_color: "--button-background",
  button_text_color: "--button-text",
  button_border_radius: "--button-radius",
  nav_background_color: "--nav-background",
  nav_text_color: "--nav-text",
  footer_background_color: "--footer-background",
  footer_text_color: "--footer-text",
};

/**
 * Turns global_styles into a `:root { … }` rule of CSS custom properties.
 * Values are validated first, so nothing the operator typed can break out of the rule.
 */
export function globalStylesToCss(styles: unknown): string {
  const parsed = globalStylesSchema.safeParse(styles);
  if (!parsed.success) return "";
  const lines = (Object.keys(cssVariableNames) as (keyof GlobalStyles)[]).map((key) => {
    const value = parsed.data[key];
    const safe = key.endsWith("_font") ? fontStack(value) : value;
    return `  ${cssVariableNames[key]}: ${safe};`;
  });
  return `:root {\n${lines.join("\n")}\n}`;
}

function fontStack(font: string): string {
  const clean = font.replace(/[^a-zA-Z0-9 -]/g, "").trim();
  return `"${clean}", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
}
