// Stripe's card fields on the card pages (docs/decisions/390, 383). Rendered inline with the request's
// CSP nonce right after Stripe.js's own script tag, only where the location's processor hosts the
// card fields. Without JavaScript (or if Stripe.js did not load) nothing here runs and the forms work
// as before: the card pages' buttons go on to Stripe Checkout (decisions 383, 400).
// With it:
// - Stripe's card Element is mounted in each [data-payment-element] (a labelled group);
// - on submit (a new card, not a saved one) the card becomes a PaymentMethod through Stripe.js, its
//   id goes into the form's hidden payment_token, and the form is sent: the card number and CVC stay
//   in Stripe's frame and never reach our server;
// - Stripe's messages (an incomplete or invalid card, a network failure) are shown in the announced
//   message beside the card field (role=alert), and focus goes back to the card;
// - when the server answers that the bank wants the cardholder to confirm the payment (3-D Secure,
//   decision 405), the answer's page carries the intent's client secret (data-client-secret): the
//   bank's check runs on the page (stripe.handleNextAction); once it succeeds the intent's id (pi_… or
//   seti_…) goes into payment_token (with the form's idempotency key, data-idempotency-key) and the
//   form is sent again; if it fails, Stripe's message is shown beside the card, which gets the focus.
(function () {
  "use strict";
  if (typeof window === "undefined" || typeof document === "undefined") return;
  var mounts = document.querySelectorAll("[data-payment-element][data-stripe-key]");
  if (!mounts.length || typeof window.Stripe !== "function") return;
  var UNREACHABLE = "We could not reach our payment processor. Nothing was charged. Please try again.";
  var NOT_CONFIRMED = "Your bank did not confirm this payment. Nothing was charged. Please try again or use another card.";
  // The bank's check failed or was closed: said plainly (Stripe's own text for it is meant for developers);
  // any other error of Stripe's (a network failure, an expired intent) is shown as Stripe words it.
  function checkFailure(error) {
    if (!error || /authentication_failure$/.test(error.code || "")) return NOT_CONFIRMED;
    return error.message || NOT_CONFIRMED;
  }

  Array.prototype.forEach.call(mounts, function (mount) {
    var form = mount.closest("form");
    if (!form) return;
    var token = form.querySelector("input[name='payment_token']");
    var message = document.getElementById(mount.getAttribute("data-error-id") || "");
    var wrapper = mount.closest("[data-hosted-fields]");
    var stripe;
    var card;
    try {
      stripe = window.Stripe(mount.getAttribute("data-stripe-key"));
      card = stripe.elements().create("card", { hidePostalCode: false });
      card.mount(mount);
    } catch {
      // Stripe.js refused (a bad key): the form stays as without JavaScript.
      return;
    }
    if (wrapper) wrapper.hidden = false;
    var note = form.querySelector("[data-js-note]");
    if (note) note.textContent = note.getAttribute("data-js-note");
    // The button said "Continue to secure payment" (Stripe Checkout, decision 400): the card is entered
    // here now. The button comes after this script in the page, so once the page is parsed.
    function ownWords() {
      var button = form.querySelector("button[data-js-label]");
      if (button) button.textContent = button.getAttribute("data-js-label");
    }
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ownWords);
    else ownWords();
    form.setAttribute("data-card-fields", "ready");

    function show(text) {
      if (!message) return;
      message.textContent = text || "";
    }
    card.on("change", function (event) {
      show(event && event.error ? event.error.message : "");
    });

    function newCardChosen() {
      var chosen = form.querySelector("input[name='payment_method']:checked");
      return !chosen || chosen.value === "new";
    }

    function send(submitter) {
      if (typeof form.requestSubmit === "function") form.requestSubmit(submitter || undefined);
      else form.submit();
    }

    var busy = false;

    // The bank's check on the page (decision 405): the server held the payment for it and gave us its
    // client secret. Read once, then taken off the page.
    var clientSecret = mount.getAttribute("data-client-secret");
    var formKey = mount.getAttribute("data-idempotency-key");
    mount.removeAttribute("data-client-secret");
    if (clientSecret && token) {
      busy = true;
      stripe.handleNextAction({ clientSecret: clientSecret }).then(
        function (result) {
          busy = false;
          var intent = result && (result.paymentIntent || result.setupIntent);
          if (!result || result.error || !intent || intent.status !== "succeeded") {
            show(checkFailure(result && result.error));
            card.focus();
            return;
          }
          show("");
          token.value = intent.id;
          var keyInput = form.querySelector("input[name='idempotency_key']");
          if (formKey && keyInput) keyInput.value = formKey;
          send(null);
        },
        function () {
          busy = false;
          show(UNREACHABLE);
          card.focus();
        },
      );
    }

    form.addEventListener("submit", function (event) {
      if (!token || token.value || !newCardChosen()) return;
      event.preventDefault();
      if (busy) return;
      busy = true;
      var submitter = event.submitter && event.submitter.form === form ? event.submitter : null;
      stripe.createPaymentMethod({ type: "card", card: card }).then(
        function (result) {
          busy = false;
          if (result.error || !result.paymentMethod) {
            show((result.error && result.error.message) || UNREACHABLE);
            card.focus();
            return;
          }
          show("");
          token.value = result.paymentMethod.id;
          send(submitter);
        },
        function () {
          busy = false;
          show(UNREACHABLE);
        },
      );
    });

    // Back from the next page: a PaymentMethod is used once; the card is entered (tokenised) again.
    window.addEventListener("pageshow", function (event) {
      if (event.persisted && token) token.value = "";
    });
  });
})();
