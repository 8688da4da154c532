import type { Locale } from "./locale.js";

/** German phrases (formal "Sie"). */
export const de: Locale = {
  code: "de",
  colon: ": ",
  toneLine: {
    neutral: { physical: "Bestellen Sie direkt auf dieser Seite.", service: "Buchen Sie direkt auf dieser Seite." },
    luxury: { physical: "Gönnen Sie sich etwas.", service: "Gönnen Sie sich etwas." },
    budget: { physical: "Der Preis auf einen Blick.", service: "Der Preis auf einen Blick." },
    eco: { physical: "Bewusst wählen.", service: "Bewusst wählen." },
    urgency: { physical: "Bestellen Sie noch heute.", service: "Buchen Sie noch heute." },
    gift: { physical: "Eine Geschenkidee.", service: "Eine Geschenkidee." },
  },
  priceText: (f) => (f.hasSaving ? "{price} statt {original_price}" : "{price}"),
  deliveryText: (d) => (d.kind === "free" ? "Kostenloser Versand." : "Versand: {delivery_price}."),
  ctaLabel: { physical: "Jetzt bestellen", service: "Jetzt buchen" },
  overviewTitle: "Auf einen Blick",
  overview: {
    about: "Beschreibung",
    price: "Preis",
    saving: "Ersparnis",
    savingText: "{saving} weniger, {saving_percent} % unter {original_price}.",
    delivery: "Versand",
    order: {
      physical: { title: "So bestellen Sie", text: "Füllen Sie das Formular auf dieser Seite aus. Hier wird keine Zahlung erhoben." },
      service: { title: "So buchen Sie", text: "Füllen Sie das Formular auf dieser Seite aus. Hier wird keine Zahlung erhoben." },
    },
  },
  galleryTitle: "Bilder",
  galleryAlt: (f, i) => `${f.title}, Bild ${i}`,
  faqTitle: "Häufige Fragen",
  faq: {
    price: "Was kostet es?",
    delivery: "Was kostet der Versand?",
    order: {
      physical: { question: "Wie bestelle ich?", answer: "Füllen Sie das Formular auf dieser Seite aus und senden Sie es ab." },
      service: { question: "Wie buche ich?", answer: "Füllen Sie das Formular auf dieser Seite aus und senden Sie es ab." },
    },
    payment: {
      question: "Bezahle ich auf dieser Seite?",
      answer: "Nein. Das Formular übermittelt uns nur Ihre Angaben; auf dieser Seite wird keine Zahlung erhoben.",
    },
  },
  offerTitle: {
    neutral: "Das Angebot",
    luxury: "Gönnen Sie sich etwas",
    budget: "Der Preis",
    eco: "Bewusst wählen",
    urgency: "Nicht warten",
    gift: "Eine Geschenkidee",
  },
  checkoutTitle: { physical: "Jetzt bestellen", service: "Termin buchen" },
  submitLabel: { physical: "Bestellung bestätigen", service: "Buchung bestätigen" },
  checkoutNote: {
    physical: "Auf dieser Seite wird keine Zahlung erhoben: Das Formular übermittelt uns nur Ihre Angaben.",
    service: "Auf dieser Seite wird keine Zahlung erhoben: Das Formular übermittelt uns nur Ihre Angaben.",
  },
  fieldLabels: { name: "Vollständiger Name", phone: "Telefonnummer", address: "Adresse", city: "Ort", email: "E-Mail", date: "Wunschtermin", notes: "Anmerkungen" },
  ui: {
    deliveryPrice: (p) => `Versand: ${p}`,
    freeDelivery: "Kostenloser Versand",
    save: (p) => `${p} % sparen`,
    requiredHint: "Mit * markierte Felder sind Pflichtfelder.",
    requiredMark: "Pflichtfeld",
    choose: "Bitte wählen…",
    previewNote: "Vorschau: Das Formular ist deaktiviert, bis die Seite veröffentlicht ist.",
    previewBanner: "Vorschau",
    confirmationTitle: "Vielen Dank!",
    confirmationText: {
      physical: "Wir haben Ihre Bestellung erhalten.",
      service: "Wir haben Ihre Buchungsanfrage erhalten.",
    },
    yourDetails: "Ihre Angaben",
    back: "Zurück zur Seite",
    notFoundTitle: "Seite nicht gefunden",
    notFoundText: "Diese Seite existiert nicht oder ist nicht mehr verfügbar.",
  },
};
