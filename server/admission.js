// Admission (issue 22, decisions 205 and 427), used by server.js: at most `max` requests are worked
// on at once; the others wait, first come first served, before any work is done for them. A rush of
// a thousand requests then never has a thousand renders and queries in flight, and the time bounds
// (connect timeout, the pool's wait bound) measure the database, not a process too busy to read its
// answers. Stored pages are answered before this, at once.
//
// A waiting request is admitted one per turn of the event loop (decision 427): a request whose work
// needs no I/O (a cached read, a "busy, try again" answer) runs to its end without yielding, and
// admitting the next one straight from that end would chain the whole queue into one turn — seconds in
// which no other request, not even a stored page, is read.

/**
 * @template Req, Res
 * @param {{ max: number; run: (req: Req, res: Res) => void }} options
 */
export function createAdmission({ max, run }) {
  let inProgress = 0;
  /** Requests in progress that are waiting for a password-hashing thread: they do not hold a place. */
  let away = 0;
  /** @type {Array<[Req, Res]>} */
  const queue = [];
  let scheduled = false;
  const admissible = () => inProgress - away < max;

  /** Admits the next one still connected (a visitor who gave up is skipped) on the next turn. */
  function pump() {
    if (scheduled || !queue.length) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (queue.length && admissible()) {
        const [req, res] = /** @type {[Req, Res]} */ (queue.shift());
        if (/** @type {any} */ (req).destroyed || /** @type {any} */ (res).writableEnded) continue;
        admit(req, res);
        break;
      }
      if (queue.length && admissible()) pump();
    });
  }

  /** @param {Req} req @param {Res} res */
  function admit(req, res) {
    inProgress++;
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      inProgress--;
      pump();
    };
    /** @type {any} */ (res).once("close", finished);
    /** @type {any} */ (res).once("finish", finished);
    run(req, res);
  }

  return {
    /** A new request: worked on now if there is room and no one is waiting (or `urgent`: health checks), else queued. */
    /** @param {Req} req @param {Res} res @param {boolean} [urgent] */
    offer(req, res, urgent = false) {
      if (urgent || (admissible() && !queue.length)) return admit(req, res);
      queue.push([req, res]);
      pump();
    },
    /**
     * A request about to wait for a password-hashing thread gives its place to the next one meanwhile,
     * and takes it back (even above the limit) with the function returned, when the hash is done.
     */
    away() {
      away++;
      pump();
      let back = false;
      return () => {
        if (back) return;
        back = true;
        away--;
      };
    },
    get waiting() {
      return queue.length;
    },
    get inProgress() {
      return inProgress;
    },
  };
}
