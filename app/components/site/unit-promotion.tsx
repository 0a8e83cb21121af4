/** A unit type's promotion (decision 305): display text only; the price beside it is what is charged. */
export function UnitPromotion({ text }: { text: string }) {
  if (!text) return null;
  return (
    <p className="unit-promotion" data-testid="unit-promotion">
      <span className="visually-hidden">Promotion: </span>
      {text}
    </p>
  );
}
