import { formatCents } from "~/domain/shared/money";
import { UnitPromotion } from "../site/unit-promotion";

interface SummaryLine {
  description: string;
  amount: number;
  tax: number;
}

/** Every charge line with its tax and the total: the browser only formats what the server computed. */
export function ChargesDueToday({ lines, total, caption = "Charges due today" }: { lines: SummaryLine[]; total: number; caption?: string }) {
  const tax = lines.reduce((s, l) => s + l.tax, 0);
  return (
    <table className="rental-charges">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col" className="num">
            Amount
          </th>
          <th scope="col" className="num">
            Tax
          </th>
          <th scope="col" className="num">
            Total
          </th>
        </tr>
      </thead>
      <tbody>
        {lines.map((l) => (
          <tr key={l.description}>
            <th scope="row">{l.description}</th>
            <td className="num">{formatCents(l.amount)}</td>
            <td className="num">{l.tax ? formatCents(l.tax) : "—"}</td>
            <td className="num">{formatCents(l.amount + l.tax)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total due today</th>
          <td className="num">{formatCents(total - tax)}</td>
          <td className="num">{formatCents(tax)}</td>
          <td className="num" data-testid="rental-total">
            <strong>{formatCents(total)}</strong>
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

/** The unit being rented, shown beside every step. */
export function RentalUnitSummary({
  unit,
  location,
  monthlyRate,
  standardRate,
  heldUntil,
  promotion = "",
}: {
  unit: string;
  location: string;
  monthlyRate: number;
  standardRate: number;
  heldUntil?: string | null;
  /** The promotion that applies (decision 674): its words; the quote takes it off (the rate above is the monthly rate). */
  promotion?: string;
}) {
  return (
    <aside className="rental-unit" aria-label="Your unit">
      <h2>Your unit</h2>
      <p className="rental-unit__name">{unit}</p>
      <p>{location}</p>
      <p>
        {standardRate > monthlyRate ? <span className="visually-hidden">Web rate </span> : null}
        <strong>{formatCents(monthlyRate)}</strong> a month
        {standardRate > monthlyRate ? (
          <>
            {" "}
            <span className="visually-hidden">, standard rate </span>
            <s data-testid="standard-rate">{formatCents(standardRate)}</s>
          </>
        ) : null}
      </p>
      <UnitPromotion text={promotion} />
      {heldUntil ? <p className="field__hint">We are holding this unit for you until {heldUntil}.</p> : null}
    </aside>
  );
}
