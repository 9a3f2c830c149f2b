/**
 * `opportunity`: a short phrase saying what a vendor could offer the poster, from the lead type
 * and the target product, falling back to the industry's usual offering when no product is named.
 */
import type { Industry } from "./industry.js";
import type { Target } from "./product.js";
import type { Intent } from "./signals.js";

/** What a vendor in each industry typically sells, used when no product or category is named. */
const OFFERING: Record<Industry, string> = {
  software_development: "development tools or services",
  it_infrastructure: "IT infrastructure services",
  it_support: "tech support",
  cybersecurity: "security tools or services",
  ecommerce_retail: "ecommerce tools",
  marketing_advertising: "marketing services",
  design_creative: "design services",
  finance_investing: "investment tools or advice",
  personal_finance: "personal finance tools",
  accounting_tax: "accounting services",
  real_estate: "real estate services",
  consumer_electronics: "a device that fits",
  startups_small_business: "small-business services",
  careers_hr: "career or hiring services",
  education_training: "courses or tutoring",
  legal_compliance: "legal services",
  healthcare: "healthcare services",
  food_hospitality: "hospitality services",
  logistics_shipping: "shipping and fulfilment services",
  media_publishing: "publishing services",
  general: "a product or service that fits",
};

/** Categories named by a mass noun take no article: "accounting software", "web hosting", "insurance". */
const MASS_NOUN = /\b(?:software|hosting|processing|insurance|design|development)$/i;

/**
 * "a" or "an" before a category, by sound: "an SEO tool", "a CRM", "an email marketing tool";
 * none before a mass noun ("recommend accounting software that fits").
 */
function article(phrase: string): string {
  if (MASS_NOUN.test(phrase)) return phrase;
  const word = phrase.split(" ")[0] ?? "";
  const acronym = word.length > 1 && word === word.toUpperCase();
  const an = acronym ? /^[AEFHILMNORSX]/.test(word) : /^[aeiou]/i.test(word);
  return `${an ? "an" : "a"} ${phrase}`;
}

/** Categories that are people hired, not things bought: "sell them a lawyer" reads wrong. */
const PROFESSIONS = new Set(["lawyer", "accountant", "web developer"]);

/** "a better CRM", but "better web hosting": no article before a mass noun. */
function better(phrase: string): string {
  return MASS_NOUN.test(phrase) ? `better ${phrase}` : `a better ${phrase}`;
}

/** The opportunity phrase for a lead. */
export function opportunityFor(type: Intent, target: Target, industry: Industry): string {
  if (target.name === "") {
    const offer = OFFERING[industry];
    switch (type) {
      case "buying_intent":
        return `sell them ${offer}`;
      // Most comparisons that name no product weigh ideas ("high margin vs low margin",
      // "cofounder vs outsourcing"): "a better alternative" to nothing read as nonsense.
      case "comparison":
        return `help weighing the options: ${offer}`;
      case "solution_request":
        return `recommend ${offer}`;
      case "advice_request":
        return `expert help: ${offer}`;
      case "pain_point":
        return `solve their problem with ${offer}`;
    }
  }
  const { name, named } = target;
  // Whatever the ask, a post that wants a product replaced is a switch a vendor can win.
  if (target.replacing) return named ? `an alternative to ${name}, with migration help` : better(name);
  // A product named as an example of what a post asks for or would buy is the kind wanted, not
  // one to sell add-ons for: "looking for something like Skype, but with multiple connections"
  // wants a Skype-like app, not "tools or services for Skype". Advice and pain keep the product:
  // read over the corpora, their examples are mostly the businesses they ask about ("How do sites
  // like Elance attract freelancers?") or the ones they had trouble with ("companies such as Yelp").
  if (named && target.like && (type === "solution_request" || type === "buying_intent")) {
    return type === "solution_request" ? `recommend something like ${name}` : `sell them something like ${name}`;
  }
  switch (type) {
    case "buying_intent":
      if (PROFESSIONS.has(name)) return `sell them ${article(name)}'s services`;
      return named ? `sell them ${name}` : `sell them ${article(name)}`;
    case "comparison":
      return named ? `an alternative to ${name}, with migration help` : better(name);
    case "solution_request":
      return named ? `tools or services for ${name}` : `recommend ${article(name)} that fits`;
    case "advice_request":
      return named ? `expert help with ${name}` : `expert help choosing or using ${article(name)}`;
    case "pain_point":
      return `fix their ${name} problem`;
  }
}
