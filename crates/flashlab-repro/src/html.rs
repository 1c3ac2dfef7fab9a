//! The combined report `index.html` of `flashlab reproduce all`: one section per reproduction,
//! rendered from its `report.md` (pulldown-cmark, tables on), with its relative links and images
//! pointed into its own folder. A small inline script marks on `<body>` how many images loaded
//! and how many are broken (`data-images`, `data-broken-images`), which a reader sees in the
//! footer and the browser test reads back.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};

/// One reproduction's part of the page.
pub struct Section<'a> {
    pub name: &'a str,
    pub about: &'a str,
    pub report_md: &'a str,
    /// Files in the section's folder to list as downloads (results.json, report.md, …).
    pub downloads: Vec<String>,
    /// Its claims' verdicts, shown at the top of the page.
    pub tally: super::verdict::Tally,
}

/// Is `url` relative to the report's folder (not absolute, not a fragment, no scheme)?
fn is_relative(url: &str) -> bool {
    !(url.starts_with('/')
        || url.starts_with('#')
        || url.contains("://")
        || url.starts_with("data:")
        || url.starts_with("mailto:"))
}

/// Markdown to HTML, with relative link and image targets prefixed by `dir/`.
pub fn render_markdown(md: &str, dir: &str) -> String {
    let fix = |url: CowStr<'static>| -> CowStr<'static> {
        if is_relative(&url) {
            format!("{dir}/{url}").into()
        } else {
            url
        }
    };
    let parser = Parser::new_ext(md, Options::ENABLE_TABLES).map(|ev| match ev {
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Image { link_type, dest_url: fix(dest_url.into_static()), title, id })
        }
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: fix(dest_url.into_static()), title, id })
        }
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, parser);
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45;color:#222}\
table{border-collapse:collapse;margin:1em 0;font-size:0.92em}th,td{border:1px solid #bbb;padding:0.3em 0.6em;text-align:right}\
th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}img{max-width:100%;height:auto;display:block;margin:1em 0}\
section{border-top:3px solid #444;margin-top:3em}nav li{margin:0.2em 0}code{background:#f4f4f4;padding:0 0.2em}\
footer{margin-top:3em;color:#666;font-size:0.9em}";

const SELF_CHECK: &str = "window.addEventListener('load',function(){var imgs=document.images,broken=0;\
for(var i=0;i<imgs.length;i++){if(!imgs[i].complete||imgs[i].naturalWidth===0){broken++;}}\
document.body.setAttribute('data-images',imgs.length);document.body.setAttribute('data-broken-images',broken);\
document.getElementById('check').textContent=imgs.length+' plots, '+broken+' broken.';});";

/// The whole page.
pub fn index_html(title: &str, intro: &str, sections: &[Section]) -> String {
    let mut page = String::new();
    page.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n<nav><ul>\n",
        escape(title),
        escape(title),
        escape(intro)
    ));
    for s in sections {
        page.push_str(&format!("<li><a href=\"#{0}\">{0}</a>: {1}</li>\n", escape(s.name), escape(s.about)));
    }
    page.push_str("</ul></nav>\n");
    page.push_str(
        "<h2>Verdicts per paper</h2>\n<p>Every claim through one rule (<code>reproduce/verdict.rs</code>): <em>agrees</em> within a band stated before the run, <em>direction only</em> when only the sign or order matches, <em>differs</em>, or <em>by construction</em> when one of our parameters was derived from that figure (never counted as agreement).</p>\n\
         <table id=\"tallies\">\n<tr><th>reproduction</th><th>agrees</th><th>direction only</th><th>differs</th><th>by construction</th><th>unexplained gaps</th><th>claims</th></tr>\n",
    );
    for s in sections {
        let t = s.tally;
        page.push_str(&format!(
            "<tr><td><a href=\"#{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td>{5}</td><td>{6}</td></tr>\n",
            escape(s.name),
            t.agrees,
            t.direction_only,
            t.differs,
            t.by_construction,
            t.unexplained,
            t.claims
        ));
    }
    page.push_str("</table>\n");
    for s in sections {
        let downloads: Vec<String> =
            s.downloads.iter().map(|f| format!("<a href=\"{0}/{1}\">{1}</a>", escape(s.name), escape(f))).collect();
        page.push_str(&format!(
            "<section id=\"{0}\">\n<p>Files: {1}</p>\n{2}</section>\n",
            escape(s.name),
            downloads.join(" · "),
            render_markdown(s.report_md, s.name)
        ));
    }
    page.push_str(&format!("<footer>Generated by flashlab. <span id=\"check\"></span></footer>\n<script>{SELF_CHECK}</script>\n</body>\n</html>\n"));
    page
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Tally;

    #[test]
    fn relative_links_and_images_point_into_the_section_folder() {
        let md = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![plot](plot.svg) [data](results.json) [ext](https://x.org/a) [top](#t)\n";
        let html = render_markdown(md, "2rpp");
        assert!(html.contains("<table>") && html.contains("<td>2</td>"), "{html}");
        assert!(html.contains("src=\"2rpp/plot.svg\"") && html.contains("href=\"2rpp/results.json\""), "{html}");
        assert!(html.contains("href=\"https://x.org/a\"") && html.contains("href=\"#t\""), "{html}");
    }

    #[test]
    fn the_page_has_a_section_and_nav_entry_per_reproduction() {
        let s = [
            Section {
                name: "a",
                about: "first <paper>",
                report_md: "# A\n",
                downloads: vec!["report.md".into()],
                tally: Tally {
                    agrees: 3,
                    direction_only: 2,
                    differs: 1,
                    by_construction: 4,
                    unexplained: 2,
                    claims: 10,
                },
            },
            Section { name: "b", about: "second", report_md: "# B\n", downloads: vec![], tally: Tally::default() },
        ];
        let page = index_html("Reports", "intro", &s);
        assert!(page.contains("<section id=\"a\">") && page.contains("<section id=\"b\">"));
        assert!(page.contains("href=\"#a\"") && page.contains("first &lt;paper&gt;"));
        assert!(page.contains("href=\"a/report.md\"") && page.contains("data-broken-images"));
        assert!(
            page.contains(
                "<tr><td><a href=\"#a\">a</a></td><td>3</td><td>2</td><td>1</td><td>4</td><td>2</td><td>10</td></tr>"
            ),
            "{page}"
        );
        assert!(page.find("id=\"tallies\"").unwrap() < page.find("<section").unwrap(), "tallies at the top");
    }
}
