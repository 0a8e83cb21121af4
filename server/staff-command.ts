/**
 * The staff invite command's endpoint (decision 249): `npm run staff:invite` asks this server, through
 * the command file beside the database that names this process's port and a fresh secret.
 */
import type { NextFunction, Request, Response } from "express";
import type { Database } from "~/db/client.server";
import { answerStaffCommand, commandRequestAllowed } from "~/services/staff/command.server";

/**
 * Loopback only, no proxy headers, the secret of the command file. Anything else is answered as if the
 * path did not exist.
 */
export function staffCommand(db: Database, staffCommandSecret: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!commandRequestAllowed({ remoteAddress: req.socket.remoteAddress, headers: req.headers, secret: staffCommandSecret })) return next();
    answerStaffCommand(db, req, res).catch(next);
  };
}
