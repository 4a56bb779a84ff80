/* Offline stand-ins for the scripts pkgdown 2.0's Bootstrap 5 template
 * loads from CDNs (bootstrap-toc, headroom, clipboard.js, mark.js, fuse.js,
 * autocomplete.js), so that the bnnmc site works without network access.
 * Each provides only what pkgdown.js calls:
 *   Toc.init({$nav, $scope})             the page's table of contents
 *   $(el).headroom()                     (the navbar simply stays)
 *   ClipboardJS(selector, {text}), .on(), ClipboardJS.isSupported()
 *   new Mark(selector).mark(text)        highlights a search term
 *   new Fuse(list, {keys}).search(q, {limit}) -> [{item, score}]
 *   $(input).autocomplete(options, [{source, templates: {suggestion}}])
 *     and its 'autocomplete:selected' event
 * Search reads search.json with fetch(), which browsers refuse for file://
 * pages; there the same index is read from search-index.js (written by
 * tools/build-site.sh) instead.
 * Loaded after jQuery and before pkgdown.js (pkgdown/templates/head.html). */
(function ($) {
  "use strict";

  /* Table of contents -------------------------------------------------- */
  function slug(text) {
    return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "section";
  }
  function headingText($h) {
    var t = $h.attr("data-toc-text");
    if (t) return t;
    var c = $h.clone();
    c.find(".anchor, .header-section-number + .anchor").remove();
    return $.trim(c.text());
  }
  window.Toc = {
    init: function (opts) {
      var $nav = opts.$nav, $scope = opts.$scope;
      if (!$nav || !$nav.length || !$scope) return;
      var $hs = $scope.filter(function () {
        return !$(this).is("[data-toc-skip]") && !$(this).closest("[data-toc-skip]").length;
      });
      if (!$hs.length) return;
      var levels = $hs.map(function () { return +this.tagName.charAt(1); }).get();
      var top = Math.min.apply(null, levels);
      var $root = $('<ul class="nav nav-pills flex-column"></ul>').appendTo($nav);
      var $parent = null;
      var used = {};
      $hs.each(function () {
        var level = +this.tagName.charAt(1);
        if (level > top + 1) return;          // two levels, as bootstrap-toc
        var text = headingText($(this));
        if (!this.id) {
          var id = slug(text), k = 1;
          while (document.getElementById(id) || used[id]) id = slug(text) + "-" + (k++);
          this.id = id;
        }
        used[this.id] = true;
        var $li = $('<li class="nav-item"></li>').append(
          $('<a class="nav-link"></a>').attr("href", "#" + this.id).text(text));
        if (level === top || !$parent) {
          $root.append($li);
          $parent = $li;
        } else {
          var $sub = $parent.children("ul");
          if (!$sub.length) $sub = $('<ul class="nav nav-pills flex-column"></ul>').appendTo($parent);
          $sub.append($li);
        }
      });
    }
  };

  /* Navbar: headroom hides it on scroll; here it stays. ---------------- */
  $.fn.headroom = function () { return this; };

  /* Copy buttons --------------------------------------------------------- */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var ta = document.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.style.position = "fixed";
      ta.style.opacity = "0";
      document.body.appendChild(ta);
      ta.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(ta);
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }
  function ClipboardJS(selector, opts) {
    var self = this;
    this.handlers = {};
    $(document).on("click", selector, function () {
      var trigger = this;
      var text = opts && opts.text ? opts.text(trigger) : $(trigger).text();
      var ev = {
        trigger: trigger, text: text,
        clearSelection: function () {
          if (window.getSelection) window.getSelection().removeAllRanges();
        }
      };
      copyText(text).then(function () { self.emit("success", ev); },
                          function () { self.emit("error", ev); });
    });
  }
  ClipboardJS.prototype.on = function (name, fn) { this.handlers[name] = fn; return this; };
  ClipboardJS.prototype.emit = function (name, ev) {
    if (this.handlers[name]) this.handlers[name](ev);
  };
  ClipboardJS.isSupported = function () {
    return !!((navigator.clipboard && window.isSecureContext) ||
              (document.queryCommandSupported && document.queryCommandSupported("copy")));
  };
  window.ClipboardJS = ClipboardJS;

  /* Highlighting a search term ------------------------------------------ */
  function Mark(selector) { this.root = document.querySelector(selector); }
  Mark.prototype.mark = function (term) {
    if (!this.root || !term) return;
    var needle = String(term).toLowerCase();
    var walker = document.createTreeWalker(this.root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) {
        var p = n.parentNode && n.parentNode.nodeName;
        if (p === "SCRIPT" || p === "STYLE" || p === "MARK") return NodeFilter.FILTER_REJECT;
        return n.nodeValue.toLowerCase().indexOf(needle) >= 0 ?
          NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
      }
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    nodes.forEach(function (node) {
      var text = node.nodeValue, lower = text.toLowerCase(), frag = document.createDocumentFragment();
      var from = 0, at;
      while ((at = lower.indexOf(needle, from)) >= 0) {
        if (at > from) frag.appendChild(document.createTextNode(text.slice(from, at)));
        var m = document.createElement("mark");
        m.textContent = text.slice(at, at + needle.length);
        frag.appendChild(m);
        from = at + needle.length;
      }
      if (from < text.length) frag.appendChild(document.createTextNode(text.slice(from)));
      node.parentNode.replaceChild(frag, node);
    });
  };
  window.Mark = Mark;

  /* Search over the index ------------------------------------------------ */
  // Every word of the query must occur in one of the keys; the score (lower
  // is better, in [0, 1]) favours matches in the earlier keys ("what", the
  // heading, before "text" and "code") and whole-word matches.
  function Fuse(list, options) {
    this.list = list || [];
    this.keys = (options && options.keys) || ["what", "text", "code"];
  }
  Fuse.prototype.search = function (query, opts) {
    var words = String(query).toLowerCase().split(/\s+/).filter(Boolean);
    var keys = this.keys, out = [];
    if (!words.length) return out;
    this.list.forEach(function (item) {
      var fields = keys.map(function (k) { return String(item[k] || "").toLowerCase(); });
      var total = 0;
      for (var i = 0; i < words.length; i++) {
        var best = -1;
        for (var j = 0; j < fields.length; j++) {
          var at = fields[j].indexOf(words[i]);
          if (at < 0) continue;
          var whole = !/[a-z0-9]/.test(fields[j].charAt(at - 1) || " ") &&
                      !/[a-z0-9]/.test(fields[j].charAt(at + words[i].length) || " ");
          var s = j / keys.length * 0.6 + (whole ? 0 : 0.1);
          if (best < 0 || s < best) best = s;
        }
        if (best < 0) return;
        total += best;
      }
      out.push({ item: item, score: total / words.length });
    });
    out.sort(function (a, b) { return a.score - b.score; });
    return opts && opts.limit ? out.slice(0, opts.limit) : out;
  };
  window.Fuse = Fuse;

  // fetch() of search.json on a file:// page: the same index from
  // search-index.js, loaded as a script (browsers allow that offline).
  var realFetch = window.fetch ? window.fetch.bind(window) : null;
  window.fetch = function (resource, init) {
    var url = typeof resource === "string" ? resource : (resource && resource.url) || "";
    if (window.location.protocol === "file:" && /search\.json$/.test(url)) {
      return new Promise(function (resolve, reject) {
        // the index's paths start at the site's root ("/reference/x.html"),
        // which on disk is the folder of search.json
        var root = url.replace(/search\.json$/, "");
        var done = function () {
          if (!window.bnnmcSearchIndex) { reject(new Error("no search index")); return; }
          var items = window.bnnmcSearchIndex.map(function (it) {
            var c = $.extend({}, it);
            if (typeof c.path === "string" && c.path.charAt(0) === "/") c.path = root + c.path.slice(1);
            return c;
          });
          resolve(new Response(JSON.stringify(items),
                               { headers: { "Content-Type": "application/json" } }));
        };
        if (window.bnnmcSearchIndex) { done(); return; }
        var s = document.createElement("script");
        s.src = url.replace(/search\.json$/, "search-index.js");
        s.onload = done;
        s.onerror = function () { reject(new Error("search-index.js not found")); };
        document.head.appendChild(s);
      });
    }
    return realFetch(resource, init);
  };

  /* The search box's drop-down ------------------------------------------- */
  $.fn.autocomplete = function (options, datasets) {
    var minLength = (options && options.minLength) || 1;
    var ds = datasets && datasets[0];
    return this.each(function () {
      var $input = $(this);
      var $wrap = $('<span class="algolia-autocomplete"></span>');
      $input.wrap($wrap);
      var $menu = $('<div class="aa-dropdown-menu" role="listbox"></div>').hide();
      $input.after($menu);
      var items = [], cursor = -1, seq = 0;
      function close() { $menu.hide().empty(); items = []; cursor = -1; }
      function select(i) {
        if (i < 0 || i >= items.length) return;
        $input.trigger("autocomplete:selected", [items[i]]);
        close();
      }
      function move(d) {
        if (!items.length) return;
        cursor = (cursor + d + items.length) % items.length;
        $menu.children(".aa-suggestion").removeClass("aa-cursor").eq(cursor).addClass("aa-cursor");
      }
      function update() {
        var q = $input.val();
        var mine = ++seq;
        if (!ds || q.length < minLength) { close(); return; }
        ds.source(q, function (res) {
          if (mine !== seq) return;
          items = res || [];
          cursor = options && options.autoselect && items.length ? 0 : -1;
          $menu.empty();
          items.forEach(function (it, i) {
            var html = ds.templates && ds.templates.suggestion ? ds.templates.suggestion(it) : String(it);
            $('<div class="aa-suggestion" role="option"></div>').html(html)
              .toggleClass("aa-cursor", i === cursor)
              .on("mousedown", function (e) { e.preventDefault(); select(i); })
              .appendTo($menu);
          });
          if (items.length) $menu.show(); else $menu.hide();
        });
      }
      $input.on("input", update);
      $input.on("keydown", function (e) {
        if (e.key === "ArrowDown") { move(1); e.preventDefault(); }
        else if (e.key === "ArrowUp") { move(-1); e.preventDefault(); }
        else if (e.key === "Enter") { if (cursor >= 0) { select(cursor); e.preventDefault(); } }
        else if (e.key === "Escape") close();
      });
      $input.on("blur", function () { setTimeout(close, 150); });
    });
  };
})(window.jQuery);
