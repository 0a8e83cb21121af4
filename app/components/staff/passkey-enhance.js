// Passkeys in the back office (issue 23; docs/decisions/273-passkey-page-script.md). Progressive
// enhancement, no framework, inline with the page's CSP nonce. Without JavaScript the pages work with
// the app's code or a recovery code and say that passkeys need JavaScript.
//
// Markup: an element [data-passkey="get"|"create"] with the server's options as JSON in
// [data-passkey-options], holding a <form> (posted as usual, so the server answers with a redirect or
// the page with a message) with a hidden [data-passkey-response] input, a [data-passkey-start] button
// (hidden until this script shows it) and a [data-passkey-status] line. "get": the button asks the
// authenticator to sign the challenge; "create": the form's submit makes a new passkey first. The
// answer (PublicKeyCredential as JSON, base64url) goes into the hidden input and the form is sent.
(function () {
  "use strict";

  function toBuffer(value) {
    var s = String(value).replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes.buffer;
  }
  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function descriptors(list) {
    var out = [];
    for (var i = 0; i < (list || []).length; i++) {
      var d = { id: toBuffer(list[i].id), type: list[i].type || "public-key" };
      if (list[i].transports) d.transports = list[i].transports;
      out.push(d);
    }
    return out;
  }
  function copy(source, keys) {
    var out = {};
    for (var i = 0; i < keys.length; i++) if (source[keys[i]] !== undefined) out[keys[i]] = source[keys[i]];
    return out;
  }

  function requestOptions(o) {
    var p = copy(o, ["rpId", "timeout", "userVerification", "extensions"]);
    p.challenge = toBuffer(o.challenge);
    p.allowCredentials = descriptors(o.allowCredentials);
    return p;
  }
  function creationOptions(o) {
    var p = copy(o, ["rp", "pubKeyCredParams", "timeout", "attestation", "authenticatorSelection", "extensions"]);
    p.challenge = toBuffer(o.challenge);
    p.user = { id: toBuffer(o.user.id), name: o.user.name, displayName: o.user.displayName };
    p.excludeCredentials = descriptors(o.excludeCredentials);
    return p;
  }

  function credentialJSON(cred) {
    var r = cred.response;
    var response = { clientDataJSON: toBase64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toBase64url(r.attestationObject);
      response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
    } else {
      response.authenticatorData = toBase64url(r.authenticatorData);
      response.signature = toBase64url(r.signature);
      if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
    }
    var json = {
      id: cred.id,
      rawId: toBase64url(cred.rawId),
      type: cred.type,
      response: response,
      clientExtensionResults: typeof cred.getClientExtensionResults === "function" ? cred.getClientExtensionResults() : {},
    };
    if (cred.authenticatorAttachment) json.authenticatorAttachment = cred.authenticatorAttachment;
    return json;
  }

  function setUp(root) {
    var mode = root.getAttribute("data-passkey");
    var form = root.querySelector("form");
    var field = root.querySelector("[data-passkey-response]");
    var button = root.querySelector("[data-passkey-start]");
    var status = root.querySelector("[data-passkey-status]");
    var hiddenUntilReady = root.querySelectorAll("[data-passkey-js]");
    var noScriptNotes = root.querySelectorAll("[data-passkey-nojs]");
    for (var j = 0; j < noScriptNotes.length; j++) noScriptNotes[j].hidden = true;
    function say(text) {
      if (status) status.textContent = text;
    }
    if (!form || !field || !button || root.getAttribute("data-passkey-ready")) return;
    root.setAttribute("data-passkey-ready", "");
    if (!window.PublicKeyCredential || !navigator.credentials || typeof navigator.credentials.get !== "function") {
      say("This browser cannot use passkeys. " + (mode === "get" ? "Enter the code from your app or a recovery code instead." : "Use another browser to add one."));
      return;
    }
    var options;
    try {
      options = JSON.parse(root.getAttribute("data-passkey-options") || "null");
    } catch {
      options = null;
    }
    if (!options) return;
    for (var i = 0; i < hiddenUntilReady.length; i++) hiddenUntilReady[i].hidden = false;
    button.hidden = false;
    var busy = false;

    function run(event) {
      if (event) event.preventDefault();
      if (busy) return;
      busy = true;
      button.disabled = true;
      say(mode === "get" ? "Waiting for your passkey…" : "Follow your browser's steps to create the passkey…");
      var ask = mode === "get" ? navigator.credentials.get({ publicKey: requestOptions(options) }) : navigator.credentials.create({ publicKey: creationOptions(options) });
      ask
        .then(function (cred) {
          if (!cred) throw new Error("no credential");
          field.value = JSON.stringify(credentialJSON(cred));
          say(mode === "get" ? "Checking your passkey…" : "Saving your passkey…");
          form.submit();
        })
        .catch(function (error) {
          busy = false;
          button.disabled = false;
          var name = error && error.name;
          if (name === "NotAllowedError" || name === "AbortError") say("The passkey was not used (it was cancelled or took too long). Try again" + (mode === "get" ? ", or enter a code." : "."));
          else if (name === "InvalidStateError") say("This passkey is registered already.");
          else if (name === "SecurityError") say("Passkeys cannot be used at this address. Ask the site's administrator.");
          else say("The passkey could not be used. Try again" + (mode === "get" ? ", or enter a code." : "."));
        });
    }
    if (mode === "create") form.addEventListener("submit", run);
    else button.addEventListener("click", run);
  }

  var roots = document.querySelectorAll("[data-passkey]");
  for (var n = 0; n < roots.length; n++) setUp(roots[n]);
})();
