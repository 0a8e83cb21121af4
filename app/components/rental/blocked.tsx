import { phoneHref } from "~/domain/shared/phone";

/**
 * Why this rental or reservation cannot go ahead online (rentals off, coming soon, sold out …),
 * with the office's number: announced as a status, shared by the rent and reserve pages.
 */
export function RentalBlocked({ message, phone }: { message: string; phone: string }) {
  return (
    <div className="alert alert--info" role="status">
      <p>{message}</p>
      <p>
        Call <a href={phoneHref(phone)}>{phone}</a>.
      </p>
    </div>
  );
}
