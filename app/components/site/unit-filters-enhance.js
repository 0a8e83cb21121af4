// Instant unit filters (progressive enhancement, no framework; see app/components/site/unit-listing.tsx).
// Without JavaScript the filter form is a plain GET form and the server hides non-matching cards.
// With it, changing a select shows and hides the same cards at once and keeps the URL in step.
(function () {
  "use strict";
  var forms = document.querySelectorAll("form[data-unit-filters]");
  Array.prototype.forEach.call(forms, function (form) {
    if (form.hasAttribute("data-enhanced")) return;
    var list = document.getElementById(form.getAttribute("data-unit-filters"));
    var status = document.getElementById(form.getAttribute("data-status"));
    if (!list) return;
    var cards = list.querySelectorAll("[data-unit-card]");
    var sections = list.querySelectorAll("[data-unit-section]");
    var empty = list.querySelector("[data-unit-empty]");
    var clear = form.querySelector("[data-unit-filters-clear]");
    var groups = ["small", "medium", "large", "parking"];

    function value(name) {
      var field = form.elements.namedItem(name);
      return field && "value" in field ? field.value : "";
    }

    function apply() {
      var size = value("size");
      var type = value("type");
      var where = value("location");
      var shown = 0;
      Array.prototype.forEach.call(cards, function (card) {
        var ok =
          (!size || (groups.indexOf(size) >= 0 ? card.getAttribute("data-size-group") === size : card.getAttribute("data-size") === size)) &&
          (!type || card.getAttribute("data-category") === type) &&
          (!where || card.getAttribute("data-location") === where);
        card.hidden = !ok;
        if (ok) shown++;
      });
      Array.prototype.forEach.call(sections, function (section) {
        section.hidden = !section.querySelector("[data-unit-card]:not([hidden])");
      });
      if (empty) empty.hidden = shown > 0;
      if (clear) clear.hidden = !(size || type || where);
      var total = cards.length;
      var noun = total === 1 ? "type" : "types";
      if (status) {
        status.textContent = shown === total ? "Showing all " + total + " unit " + noun : "Showing " + shown + " of " + total + " unit " + noun;
      }
      var params = new URLSearchParams();
      if (size) params.set("size", size);
      if (type) params.set("type", type);
      if (where) params.set("location", where);
      var query = params.toString();
      history.replaceState(history.state, "", location.pathname + (query ? "?" + query : "") + location.hash);
    }

    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      apply();
    });
    form.setAttribute("data-enhanced", "");
  });
})();
