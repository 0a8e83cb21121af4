import { CARD_BRAND_LABELS, type CardBrand } from "~/domain/payments/cards";

/** Our own small marks (not the brands' artwork): a coloured card with the brand's initials. */
const MARKS: Record<CardBrand, { fill: string; text: string; ink: string }> = {
  visa: { fill: "#1a1f71", text: "VISA", ink: "#ffffff" },
  mastercard: { fill: "#231f20", text: "MC", ink: "#ffffff" },
  discover: { fill: "#ffffff", text: "DISC", ink: "#231f20" },
};

function BrandMark({ brand }: { brand: CardBrand }) {
  const m = MARKS[brand];
  return (
    <svg className="card-brand__mark" width="38" height="24" viewBox="0 0 38 24" aria-hidden="true" focusable="false">
      <rect x="0.5" y="0.5" width="37" height="23" rx="3" fill={m.fill} stroke="#6b7280" />
      {brand === "mastercard" ? (
        <>
          <circle cx="15" cy="12" r="7" fill="#eb001b" />
          <circle cx="23" cy="12" r="7" fill="#f79e1b" fillOpacity="0.85" />
        </>
      ) : (
        <text x="19" y="16" textAnchor="middle" fontFamily="Arial, sans-serif" fontSize="10" fontWeight="700" fill={m.ink}>
          {m.text}
        </text>
      )}
      {brand === "discover" ? <circle cx="33" cy="19" r="2.5" fill="#f58220" /> : null}
    </svg>
  );
}

/** The cards a location takes, each with its mark and its name (the name is what screen readers read). */
export function CardBrandBadges({ brands, label = "Cards we accept" }: { brands: readonly CardBrand[]; label?: string }) {
  return (
    <ul className="card-brands" aria-label={label} data-testid="card-brands">
      {brands.map((b) => (
        <li key={b} className={`card-brand card-brand--${b}`}>
          <BrandMark brand={b} /> <span>{CARD_BRAND_LABELS[b]}</span>
        </li>
      ))}
    </ul>
  );
}
