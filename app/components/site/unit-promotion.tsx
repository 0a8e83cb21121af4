/** A unit type's promotion that applies (decisions 603, 674): its words, the same as its charge line says ("Promotion: …"). */
export function UnitPromotion({ text }: { text: string }) {
  if (!text) return null;
  return (
    <p className="unit-promotion" data-testid="unit-promotion">
      <span className="visually-hidden">Promotion: </span>
      {text}
    </p>
  );
}
