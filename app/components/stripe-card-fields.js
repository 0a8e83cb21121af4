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
//   message beside the card field (role=alert), and focus goes back to the card.
(function () {
  "use strict";
  if (typeof window === "undefined" || typeof document === "undefined") return;
  var mounts = document.querySelectorAll("[data-payment-element][data-stripe-key]");
  if (!mounts.length || typeof window.Stripe !== "function") return;
  var UNREACHABLE = "We could not reach our payment processor. Nothing was charged. Please try again.";

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

    var busy = false;
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
          if (typeof form.requestSubmit === "function") form.requestSubmit(submitter);
          else form.submit();
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
