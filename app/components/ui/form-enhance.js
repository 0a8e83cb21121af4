// Form enhancements (progressive enhancement, no framework; docs/decisions/130). Every form works
// without JavaScript: the server validates, answers with the errors beside the fields and a focused
// summary, and keeps what was typed. With JavaScript, this small inline script adds:
// - phone inputs ([data-phone-mask]) formatted as (###) ###-#### while typing;
// - a submit button ([data-pending-text]) that shows progress, and a form sent only once per click
//   (a second click while the first submit is under way is ignored; after 10 s, or when the page comes
//   back from the back/forward cache, the form can be sent again, e.g. after the visitor stopped the load);
// - after a refused submit, focus on the first field in error instead of the summary.
(function () {
  "use strict";

  // Same rule as maskPhoneAsTyped in app/domain/shared/phone.ts (form-enhance.test.ts checks both agree).
  function maskPhone(value) {
    var d = value.replace(/\D/g, "").replace(/^1(?=\d{10})/, "").slice(0, 10);
    if (d.length === 0) return "";
    if (d.length < 4) return "(" + d;
    if (d.length < 7) return "(" + d.slice(0, 3) + ") " + d.slice(3);
    return "(" + d.slice(0, 3) + ") " + d.slice(3, 6) + "-" + d.slice(6);
  }
  if (typeof window === "undefined" || typeof document === "undefined") {
    if (typeof globalThis !== "undefined") globalThis.__gatehouseMaskPhone = maskPhone;
    return;
  }

  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input || !input.hasAttribute || !input.hasAttribute("data-phone-mask")) return;
    var masked = maskPhone(input.value);
    if (masked !== input.value) input.value = masked;
  });

  var pending = [];
  function release() {
    pending.forEach(function (p) {
      p.form.removeAttribute("data-submitting");
      if (p.button) {
        p.button.removeAttribute("aria-disabled");
        p.button.textContent = p.text;
      }
    });
    pending = [];
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form || form.method === "get") return;
    if (form.hasAttribute("data-submitting")) {
      event.preventDefault();
      return;
    }
    form.setAttribute("data-submitting", "");
    var button = event.submitter || form.querySelector("[data-pending-text]");
    if (button && button.hasAttribute("data-pending-text")) {
      pending.push({ form: form, button: button, text: button.textContent });
      button.setAttribute("aria-disabled", "true");
      button.textContent = button.getAttribute("data-pending-text");
    } else {
      pending.push({ form: form });
    }
    setTimeout(release, 10000);
  });

  // Back/forward from the next page restores this one from the cache: the buttons are usable again.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) release();
  });

  // "Copy" buttons ([data-copy-target], hidden until this script shows them; issue 39): copy the named
  // field's value to the clipboard and say so in its status ([data-copy-status]); where the clipboard
  // is refused, select the field for the visitor to copy. The words are the button's data-copied and
  // data-copy-failed.
  Array.prototype.forEach.call(document.querySelectorAll("button[data-copy-target]"), function (button) {
    var id = button.getAttribute("data-copy-target");
    var field = document.getElementById(id);
    if (!field) return;
    var status = document.querySelector("[data-copy-status='" + id + "']");
    function say(text) {
      if (status) status.textContent = text || "";
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var copying = navigator.clipboard && navigator.clipboard.writeText ? navigator.clipboard.writeText(field.value) : Promise.reject(new Error("no clipboard"));
      copying.then(
        function () {
          say(button.getAttribute("data-copied"));
        },
        function () {
          field.focus();
          field.select();
          say(button.getAttribute("data-copy-failed"));
        },
      );
    });
  });

  var firstInvalid = document.querySelector("form [aria-invalid='true']");
  if (firstInvalid) {
    var summary = document.querySelector(".error-summary[autofocus]");
    if (summary) summary.removeAttribute("autofocus");
    firstInvalid.focus();
  }
})();
