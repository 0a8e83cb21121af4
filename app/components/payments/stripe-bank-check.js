// The bank's check (3-D Secure) of a payment held for it, completed on the e-mailed link's page
// (/pay/authenticate/…, docs/decisions/395 and 405). Rendered inline with the request's CSP nonce right
// after Stripe.js's own script tag, only when the page's loader found something to complete in place.
// Without JavaScript (or if Stripe.js did not load) the button goes to the bank's page as before.
// With it, the button runs the check here: Stripe.js confirms the PaymentIntent again with its card
// when it was held off session (confirmCardPayment), or runs its next action (handleNextAction); the
// page is then loaded again with ?payment_intent=pi_…, where the server checks the PaymentIntent with
// Stripe and records the payment once. A failure is said in the announced message, and the button
// gets the focus back; pressed again, it goes to the bank's page as without JavaScript.
(function () {
  "use strict";
  if (typeof window === "undefined" || typeof document === "undefined") return;
  var form = document.querySelector("form[data-bank-check][data-stripe-key]");
  if (!form || typeof window.Stripe !== "function") return;
  var secret = form.getAttribute("data-client-secret");
  var card = form.getAttribute("data-payment-method");
  form.removeAttribute("data-client-secret");
  if (!secret) return;
  var message = document.getElementById(form.getAttribute("data-error-id") || "");
  var button = form.querySelector("button[type='submit']");
  var stripe;
  try {
    stripe = window.Stripe(form.getAttribute("data-stripe-key"));
  } catch {
    return;
  }
  var FAILED = "Your bank did not confirm this payment. Nothing was charged. Please try again, or sign in to the customer portal to pay with another card.";
  var UNREACHABLE = "We could not reach our payment processor. Nothing was charged. Please try again.";
  function show(text) {
    if (!message) return;
    message.textContent = text || "";
    if (text) message.className = "alert alert--error";
  }
  var busy = false;
  form.addEventListener("submit", function (event) {
    // After a failed check the button goes to the bank's page, as without JavaScript (a new try).
    if (!secret) return;
    event.preventDefault();
    if (busy) return;
    busy = true;
    show("");
    var check = card ? stripe.confirmCardPayment(secret, { payment_method: card }) : stripe.handleNextAction({ clientSecret: secret });
    check.then(
      function (result) {
        var intent = result && result.paymentIntent;
        if (!result || result.error || !intent || (intent.status !== "succeeded" && intent.status !== "processing")) {
          busy = false;
          secret = null;
          var error = result && result.error;
          show(error && error.message && !/authentication_failure$/.test(error.code || "") ? error.message : FAILED);
          if (button) button.focus();
          return;
        }
        // Confirmed on the card's side: the server checks it with Stripe and records it once.
        window.location.assign(window.location.pathname + "?payment_intent=" + encodeURIComponent(intent.id));
      },
      function () {
        busy = false;
        secret = null;
        show(UNREACHABLE);
        if (button) button.focus();
      },
    );
  });
})();
