/*
 * Form widget: checks an email field when the visitor leaves it, offers "Did you mean ...?",
 * and blocks what the page asks it to block. One file, no dependencies, served by the service itself.
 *
 *   <script src="https://VERIMAIL_HOST/widget.js" defer></script>
 *   <input type="email" name="email" data-email-check-key="pk_live_..." data-email-check-block="invalid disposable">
 *
 * Attributes of the input:
 *   data-email-check-key      the publishable key (required); its allowed origins must list this page's origin
 *   data-email-check-block    what stops the form: any of "invalid", "disposable", "role" (default "invalid")
 *   data-email-check-timeout  seconds the check may take (1-10, default 3); past it the form goes on
 *   data-email-check-token    name of the hidden field that carries the verdict token (default "email_check_token")
 *   data-email-check-message  id of an element to show messages in (default: one added after the input)
 *
 * It fails open: a network error, a timeout, a refusal (a page not allowed, the key's budget or the account's
 * quota used up: 403, 429) or a throttled answer never stops the form. The form's server confirms the token
 * (POST /validate/confirm, secret key) before trusting any verdict, and checks the address itself without one.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var base = script ? new URL(script.src).origin : "";
  var SLACK_MS = 1500; // network time on top of the service's own budget
  var TEXT = {
    syntax: "This doesn't look like an email address.",
    no_mail_server: "This email domain can't receive mail.",
    mailbox_not_found: "This mailbox doesn't exist.",
    mailbox_disabled: "This mailbox is disabled.",
    invalid: "This email address can't receive mail.",
    disposable: "Please use a permanent email address, not a disposable one.",
    role: "Please use a personal address rather than a shared one like info@.",
    didYouMean: "Did you mean ",
  };

  function words(attribute) {
    return (attribute || "").split(/[\s,]+/).filter(Boolean);
  }

  function blockedBy(answer, block) {
    if (answer.verdict === "invalid" && block.indexOf("invalid") >= 0) {
      return TEXT[answer.reason] || TEXT.invalid;
    }
    if (answer.disposable && block.indexOf("disposable") >= 0) return TEXT.disposable;
    if (answer.role && block.indexOf("role") >= 0) return TEXT.role;
    return "";
  }

  function messageArea(input) {
    var named = input.getAttribute("data-email-check-message");
    var area = named && document.getElementById(named);
    if (!area) {
      area = document.createElement("div");
      area.id = (input.id || input.name || "email") + "-email-check";
      area.className = "email-check-message";
      area.style.fontSize = "0.875em";
      area.style.marginTop = "0.25em";
      input.insertAdjacentElement("afterend", area);
    }
    area.setAttribute("role", "status");
    area.setAttribute("aria-live", "polite");
    var described = words(input.getAttribute("aria-describedby"));
    if (described.indexOf(area.id) < 0) {
      input.setAttribute("aria-describedby", described.concat(area.id).join(" "));
    }
    return area;
  }

  function tokenField(input) {
    var name = input.getAttribute("data-email-check-token") || "email_check_token";
    var form = input.form;
    if (!form) return null;
    var field = form.querySelector('input[type="hidden"][name="' + name + '"]');
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = name;
      form.appendChild(field);
    }
    return field;
  }

  function Widget(input) {
    this.input = input;
    this.key = input.getAttribute("data-email-check-key");
    this.block = words(input.getAttribute("data-email-check-block") || "invalid");
    var timeout = parseFloat(input.getAttribute("data-email-check-timeout"));
    this.timeout = timeout >= 1 && timeout <= 10 ? timeout : 3;
    this.area = messageArea(input);
    this.token = tokenField(input);
    this.answers = {}; // address -> answer: unchanged input is not checked again
    this.checking = "";
    var self = this;
    input.addEventListener("blur", function () { self.check(); });
    input.addEventListener("input", function () { self.reset(); });
    if (input.form) {
      input.form.addEventListener("submit", function (event) { self.onSubmit(event); });
    }
  }

  Widget.prototype.reset = function () {
    this.input.setCustomValidity("");
    this.input.removeAttribute("aria-invalid");
    if (this.token) this.token.value = "";
    this.say("");
  };

  Widget.prototype.say = function (text, suggestion) {
    var area = this.area;
    while (area.firstChild) area.removeChild(area.firstChild);
    if (text) area.appendChild(document.createTextNode(text + (suggestion ? " " : "")));
    if (suggestion) {
      var self = this;
      var offer = document.createElement("button");
      offer.type = "button";
      offer.className = "email-check-suggestion";
      offer.textContent = suggestion;
      offer.addEventListener("click", function () { self.apply(suggestion); });
      area.appendChild(document.createTextNode(TEXT.didYouMean));
      area.appendChild(offer);
      area.appendChild(document.createTextNode("?"));
    }
  };

  Widget.prototype.apply = function (suggestion) {
    this.input.value = suggestion;
    this.reset();
    this.input.focus();
    this.check();
  };

  Widget.prototype.check = function () {
    var address = this.input.value.trim();
    if (!address || address === this.checking) return;
    if (this.answers[address]) return this.show(this.answers[address]);
    this.checking = address;
    var self = this;
    this.ask(address).then(
      function (answer) {
        self.checking = "";
        if (!answer) return; // fail open: nothing said, nothing blocked
        self.answers[address] = answer;
        if (self.input.value.trim() === address) self.show(answer);
      },
      function () { self.checking = ""; }
    );
  };

  Widget.prototype.ask = function (address) {
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timer = setTimeout(function () { if (controller) controller.abort(); }, this.timeout * 1000 + SLACK_MS);
    return fetch(base + "/validate/browser", {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      headers: { "Content-Type": "application/json", "X-API-Key": this.key },
      body: JSON.stringify({ email: address, timeout: this.timeout }),
      signal: controller ? controller.signal : undefined,
    })
      .then(function (response) { return response.ok ? response.json() : null; })
      .catch(function () { return null; })
      .then(function (answer) { clearTimeout(timer); return answer; });
  };

  Widget.prototype.show = function (answer) {
    if (this.token) this.token.value = answer.token || "";
    var suggested = answer.suggestion && answer.suggestion !== answer.email ? answer.suggestion : "";
    var blocked = blockedBy(answer, this.block);
    // A typo is the diagnosis: the visitor meant another address, so the offer is the whole message.
    if (blocked && suggested) blocked = TEXT.didYouMean + suggested + "?";
    this.input.setCustomValidity(blocked);
    if (blocked) this.input.setAttribute("aria-invalid", "true");
    else this.input.removeAttribute("aria-invalid");
    this.say(suggested ? "" : blocked, suggested);
  };

  Widget.prototype.onSubmit = function (event) {
    if (this.input.validationMessage && this.input.getAttribute("aria-invalid") === "true") {
      event.preventDefault();
      this.input.focus();
    }
  };

  function attach(input) {
    if (input.emailCheck || !input.getAttribute("data-email-check-key")) return;
    input.emailCheck = new Widget(input);
  }

  function attachAll() {
    var inputs = document.querySelectorAll('input[type="email"][data-email-check-key]');
    for (var i = 0; i < inputs.length; i++) attach(inputs[i]);
  }

  window.emailCheck = { attach: attach };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attachAll);
  else attachAll();
})();
