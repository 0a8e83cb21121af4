import { Link } from "~/components/ui/link";
import { MOVE_IN_STEPS, STEP_LABELS, type RentalStep } from "~/domain/rental/steps";

/**
 * The rental's progress: every step, the current one marked for screen readers (aria-current), the
 * steps already done as links back (Back keeps what was typed: the answers live on the server).
 */
export function RentalStepsNav({
  current,
  furthest,
  basePath,
  steps = MOVE_IN_STEPS,
}: {
  current: RentalStep | "done";
  furthest: RentalStep | "done";
  basePath: string;
  /** The location's steps (`moveInSteps`: no e-sign step when it is off, decision 203). */
  steps?: readonly RentalStep[];
}) {
  const currentIndex = current === "done" ? steps.length : steps.indexOf(current);
  const furthestIndex = furthest === "done" ? -1 : steps.indexOf(furthest);
  return (
    <nav aria-label="Rental steps" className="rental-progress">
      <ol>
        {steps.map((step, i) => {
          const state = i < currentIndex ? "done" : i === currentIndex ? "current" : "todo";
          const label = (
            <>
              <span className="rental-progress__number" aria-hidden="true">
                {i + 1}
              </span>{" "}
              {STEP_LABELS[step]}
              {state === "done" ? <span className="visually-hidden"> (done)</span> : null}
            </>
          );
          return (
            <li key={step} className={`rental-progress__step rental-progress__step--${state}`} aria-current={state === "current" ? "step" : undefined}>
              {state !== "current" && i <= furthestIndex ? <Link to={`${basePath}?step=${step}`}>{label}</Link> : <span>{label}</span>}
            </li>
          );
        })}
        <li className={`rental-progress__step rental-progress__step--${current === "done" ? "current" : "todo"}`} aria-current={current === "done" ? "step" : undefined}>
          <span>
            <span className="rental-progress__number" aria-hidden="true">
              {steps.length + 1}
            </span>{" "}
            Confirmation
          </span>
        </li>
      </ol>
    </nav>
  );
}
