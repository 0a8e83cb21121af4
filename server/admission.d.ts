// Types of server/admission.js (plain JavaScript: server.js runs it without a build).
export interface Admission<Req, Res> {
  offer(req: Req, res: Res, urgent?: boolean): void;
  away(): () => void;
  readonly waiting: number;
  readonly inProgress: number;
}
export function createAdmission<Req, Res>(options: { max: number; run: (req: Req, res: Res) => void }): Admission<Req, Res>;
