// The report model as one self-contained HTML page.
#include <fmt/format.h>

#include "report/assets.h"
#include "report/model_internal.h"

namespace ssdlab {
namespace report {
namespace {

constexpr const char* kCss = R"CSS(
:root { --ink: #1d2733; --muted: #6b7785; --rule: #d5dbe2; --band: #f4f6f9; --accent: #1f5fa8; --good: #1e7d3a; --bad: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 "Helvetica Neue", Helvetica, Arial, "Liberation Sans", sans-serif; color: var(--ink); background: #fff; }
header.top { background: #17324d; color: #fff; padding: 28px 40px 22px; }
header.top h1 { margin: 0 0 6px; font-size: 26px; font-weight: 600; letter-spacing: .2px; }
header.top .sub { color: #c9d6e3; font-size: 15px; }
header.top .meta { color: #9fb3c8; font-size: 12px; margin-top: 8px; }
nav.toc { border-bottom: 1px solid var(--rule); padding: 8px 40px; background: var(--band); font-size: 13px; position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; gap: 2px 16px; }
nav.toc a { color: var(--accent); text-decoration: none; white-space: nowrap; }
main { padding: 8px 40px 40px; max-width: 1500px; }
@media (max-width: 1100px) { header.top, nav.toc, main, footer { padding-left: 20px; padding-right: 20px; } nav.toc { position: static; } }
section { margin-top: 30px; }
section > h2 { font-size: 20px; font-weight: 600; border-bottom: 2px solid var(--ink); padding-bottom: 4px; margin: 0 0 8px; }
section > p.intro { color: var(--muted); margin: 0 0 14px; max-width: 980px; }
.row { display: flex; flex-wrap: wrap; gap: 18px 28px; align-items: flex-start; }
figure.chart { margin: 10px 0 18px; display: block; max-width: 100%; width: fit-content; }
figure.chart .vis { max-width: 100%; overflow-x: auto; }
figure.chart figcaption { display: block; max-width: 720px; font-size: 12.5px; color: var(--muted); margin-top: 4px; }
.table-wrap .caption { max-width: 720px; }
.table-wrap { margin: 10px 0 20px; overflow-x: auto; }
.table-wrap .caption { font-weight: 600; color: var(--ink); margin: 0 0 6px; font-size: 13.5px; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; }
th { background: var(--band); font-weight: 600; border-bottom: 2px solid #aab4bf; }
table.facts td { text-align: left; max-width: 520px; }
table.facts th { text-align: left; }
tr.group td { background: #e9eef4; font-weight: 600; text-align: left; }
td.good { color: var(--good); font-weight: 600; }
td.bad { color: var(--bad); font-weight: 600; }
td.muted { color: var(--muted); }
ul.notes { margin: 6px 0 0; padding-left: 18px; color: var(--muted); font-size: 12px; max-width: 980px; }
p.text { margin: 8px 0; padding: 8px 12px; background: var(--band); border-left: 3px solid #aab4bf; max-width: 980px; }
footer { color: var(--muted); font-size: 12px; padding: 20px 40px; border-top: 1px solid var(--rule); }
.vega-bindings { font-size: 12px; color: var(--muted); margin-top: 2px; }
.vega-bindings select { font-size: 12px; }
@media print {
  @page { size: A4; margin: 14mm 12mm; }
  body { font-size: 11px; }
  header.top { background: none; color: var(--ink); padding: 0 0 8px; border-bottom: 2px solid var(--ink); }
  header.top .sub, header.top .meta { color: var(--muted); }
  nav.toc { display: none; }
  main, footer { padding: 0; max-width: none; }
  section { break-before: auto; }
  section > h2 { break-after: avoid; }
  figure.chart, .table-wrap, tr { break-inside: avoid; }
  figure.chart .vis { overflow: visible; }
  .vega-bindings, .vega-embed details { display: none; }
}
)CSS";

// Captures errors before anything else runs, so a failing library shows in the status.
constexpr const char* kErrorHook = R"JS(
window.__ssdlabErrors = [];
window.addEventListener('error', function (e) { window.__ssdlabErrors.push(String(e.message || e)); });
window.addEventListener('unhandledrejection', function (e) { window.__ssdlabErrors.push('unhandled rejection: ' + String(e.reason)); });
(function () { var ce = console.error; console.error = function () { window.__ssdlabErrors.push(Array.prototype.map.call(arguments, String).join(' ')); return ce.apply(console, arguments); }; })();
)JS";

// Draws every chart; writes what it found into #render-status (checked by the browser test).
constexpr const char* kRender = R"JS(
(function () {
  var status = { charts: 0, rendered: 0, failed: [], marks: {}, errors: window.__ssdlabErrors };
  function countMarks(node) {
    var n = 0;
    (function walk(m) {
      if (!m || !m.items) return;
      if (m.marktype && m.marktype !== 'group' && m.role === 'mark') n += m.items.length;
      for (var i = 0; i < m.items.length; i++) {
        var it = m.items[i];
        if (it && it.items) for (var j = 0; j < it.items.length; j++) walk(it.items[j]);
      }
    })(node);
    return n;
  }
  // Okabe-Ito's colour-blind-safe palette (yellow darkened to read on white), then grey.
  var config = {
    font: 'Helvetica Neue, Helvetica, Arial, Liberation Sans, sans-serif',
    title: { fontSize: 14, fontWeight: 600, anchor: 'start', color: '#1d2733' },
    axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 500, gridColor: '#e6eaef', domainColor: '#8a96a3', tickColor: '#8a96a3', labelSeparation: 6 },
    axisQuantitative: { labelOverlap: 'greedy' },
    axisTemporal: { labelOverlap: 'greedy' },
    legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 },
    header: { labelFontSize: 12, titleFontSize: 12, labelFontWeight: 600 },
    view: { stroke: '#d5dbe2' },
    range: { category: ['#0072b2', '#e69f00', '#009e73', '#d55e00', '#cc79a7', '#56b4e9', '#b59a00', '#000000', '#8c8c8c', '#004b75', '#9c5f00', '#006b4e'] }
  };
  function finish() {
    var el = document.getElementById('render-status');
    el.textContent = JSON.stringify(status);
    el.setAttribute('data-done', '1');
  }
  var specs;
  try { specs = JSON.parse(document.getElementById('ssdlab-specs').textContent); }
  catch (e) { status.failed.push('specs: ' + e); finish(); return; }
  var ids = Object.keys(specs);
  status.charts = ids.length;
  var chain = Promise.resolve();
  ids.forEach(function (id) {
    chain = chain.then(function () {
      var el = document.getElementById(id);
      if (!el) { status.failed.push(id + ': no element'); return; }
      if (typeof vegaEmbed !== 'function') { status.failed.push(id + ': vega-embed not loaded'); return; }
      return vegaEmbed(el, specs[id], { renderer: 'svg', actions: { export: true, source: false, compiled: false, editor: false }, downloadFileName: id, config: config }).then(function (res) {
        var n = countMarks(res.view.scenegraph().root);
        status.marks[id] = n;
        if (n > 0) status.rendered++; else status.failed.push(id + ': no data marks');
      }).catch(function (e) { status.failed.push(id + ': ' + e); window.__ssdlabErrors.push(String(e)); });
    });
  });
  chain.then(finish, function (e) { status.failed.push(String(e)); finish(); });
})();
)JS";

// JSON that is safe inside a <script> element: every '<' escaped (it can only occur in strings).
std::string ScriptJson(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size() + 64);
  for (char c : s) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string SafeScript(std::string_view js) {
  std::string s(js);
  size_t pos = 0;
  while ((pos = s.find("</script", pos)) != std::string::npos) {
    s.replace(pos, 2, "<\\/");
    pos += 3;
  }
  return s;
}

// Figures are right-aligned, words left-aligned.
bool Numeric(const std::string& t) {
  size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
  return i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) &&
         t.find(" bytes (") == std::string::npos;
}

std::string CellHtml(const json& c, bool header, bool first_column = false) {
  const char* tag = header ? "th" : "td";
  std::string text = c.is_object()   ? Str(c, "text")
                     : c.is_string() ? c.get<std::string>()
                     : c.is_null()   ? ""
                                     : c.dump();
  std::string cls = c.is_object() ? Str(c, "class") : "";
  if (!header && !first_column && Numeric(text)) cls += cls.empty() ? "num" : " num";
  if (cls.empty()) return fmt::format("<{}>{}</{}>", tag, HtmlEscape(text), tag);
  return fmt::format("<{} class=\"{}\">{}</{}>", tag, HtmlEscape(cls), HtmlEscape(text), tag);
}

void RenderBlock(const json& b, std::string& html, json& specs) {
  std::string kind = Str(b, "kind");
  if (kind == "row") {
    html += "<div class=\"row\">\n";
    for (const json& x : Get(b, "blocks")) RenderBlock(x, html, specs);
    html += "</div>\n";
  } else if (kind == "chart") {
    std::string id = Str(b, "id");
    specs[id] = b["spec"];
    html += fmt::format(
        "<figure class=\"chart\"><div class=\"vis\" "
        "id=\"{}\"></div><figcaption>{}</figcaption></figure>\n",
        HtmlEscape(id), HtmlEscape(Str(b, "caption")));
  } else if (kind == "table") {
    const json& cols = Get(b, "columns");
    bool facts = Str(b, "id").rfind("overview", 0) == 0 || Str(b, "id").rfind("params-", 0) == 0 ||
                 Str(b, "id").rfind("claims-drive", 0) == 0;
    html += fmt::format(
        "<div class=\"table-wrap\" id=\"{}\"><div class=\"caption\">{}</div><table{}>\n<thead><tr>",
        HtmlEscape(Str(b, "id")), HtmlEscape(Str(b, "caption")), facts ? " class=\"facts\"" : "");
    // A column of figures has its heading right-aligned too.
    std::vector<int> numeric(cols.size(), 0), words(cols.size(), 0);
    for (const json& r : Get(b, "rows")) {
      if (!r.is_array()) continue;
      for (size_t i = 0; i < r.size() && i < cols.size(); ++i) {
        std::string t = r[i].is_object()   ? Str(r[i], "text")
                        : r[i].is_string() ? r[i].get<std::string>()
                                           : "";
        (i > 0 && Numeric(t) ? numeric[i] : words[i])++;
      }
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      std::string t = cols[i].is_string() ? cols[i].get<std::string>() : "";
      html += numeric[i] > words[i] ? "<th class=\"num\">" + HtmlEscape(t) + "</th>"
                                    : "<th>" + HtmlEscape(t) + "</th>";
    }
    html += "</tr></thead>\n<tbody>\n";
    for (const json& r : Get(b, "rows")) {
      if (r.is_object()) {
        html += fmt::format("<tr class=\"group\"><td colspan=\"{}\">{}</td></tr>\n", cols.size(),
                            HtmlEscape(Str(r, "group")));
        continue;
      }
      html += "<tr>";
      for (size_t i = 0; i < r.size(); ++i) html += CellHtml(r[i], false, i == 0);
      html += "</tr>\n";
    }
    html += "</tbody></table>\n";
    const json& notes = Get(b, "notes");
    if (notes.is_array() && !notes.empty()) {
      html += "<ul class=\"notes\">";
      for (const json& n : notes) html += "<li>" + HtmlEscape(n.get<std::string>()) + "</li>";
      html += "</ul>\n";
    }
    html += "</div>\n";
  } else if (kind == "text") {
    html += "<p class=\"text\">" + HtmlEscape(Str(b, "text")) + "</p>\n";
  }
}

}  // namespace
}  // namespace report

using report::json;

nlohmann::json EmbeddedLibraryVersions() {
  json v = json::object();
  for (const report::Asset& a : report::EmbeddedAssets()) v[a.name] = a.version;
  return v;
}

std::string RenderReportHtml(const json& model) {
  using namespace report;
  std::string body;
  json specs = json::object();
  std::string toc;
  for (const json& s : Get(model, "sections")) {
    std::string id = Str(s, "id");
    toc += fmt::format("<a href=\"#sec-{}\">{}</a>", HtmlEscape(id), HtmlEscape(Str(s, "title")));
    body += fmt::format("<section id=\"sec-{}\">\n<h2>{}</h2>\n", HtmlEscape(id),
                        HtmlEscape(Str(s, "title")));
    if (!Str(s, "intro").empty())
      body += "<p class=\"intro\">" + HtmlEscape(Str(s, "intro")) + "</p>\n";
    for (const json& b : Get(s, "blocks")) RenderBlock(b, body, specs);
    body += "</section>\n";
  }
  std::string libs, credits, licenses;
  for (const Asset& a : EmbeddedAssets()) {
    libs += "<script>" + SafeScript(a.js) + "</script>\n";
    credits += fmt::format("{}{} {}", credits.empty() ? "" : ", ", a.name, a.version);
    std::string lic(a.license);
    size_t pos = 0;
    while ((pos = lic.find("--", pos)) != std::string::npos) lic.replace(pos, 2, "- -");
    licenses += fmt::format("\n{} {}:\n{}\n", a.name, a.version, lic);
  }
  std::string meta = Str(model, "tool_version");
  if (!Str(model, "generated_at").empty())
    meta += (meta.empty() ? "" : ", ") + std::string("generated ") + Str(model, "generated_at");
  std::string html;
  html.reserve(body.size() + 1'000'000);
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<meta name=\"generator\" content=\"" + HtmlEscape(Str(model, "tool_version", "ssdlab")) +
          "\">\n";
  html += "<title>" + HtmlEscape(Str(model, "title")) + "</title>\n<style>" + std::string(kCss) +
          "</style>\n";
  html += "<script>" + std::string(kErrorHook) + "</script>\n";
  html += "<!-- Embedded charting libraries and their licenses:" + licenses + "-->\n";
  html += libs;
  html += "</head>\n<body>\n<header class=\"top\"><h1>" + HtmlEscape(Str(model, "title")) +
          "</h1><div class=\"sub\">" + HtmlEscape(Str(model, "subtitle")) + "</div>";
  if (!meta.empty()) html += "<div class=\"meta\">" + HtmlEscape(meta) + "</div>";
  html += "</header>\n<nav class=\"toc\">" + toc + "</nav>\n<main>\n" + body + "</main>\n";
  html += "<footer>Charts drawn in this page by " + HtmlEscape(credits) +
          " (BSD-3-Clause), embedded in the file: it needs no network. Data: ssdlab results "
          "database; export with <code>ssdlab export</code>.</footer>\n";
  html += "<div id=\"render-status\" hidden></div>\n";
  html +=
      "<script type=\"application/json\" id=\"ssdlab-specs\">" + ScriptJson(specs) + "</script>\n";
  html += "<script>" + std::string(kRender) + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace ssdlab
