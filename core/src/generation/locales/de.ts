import type { Locale } from "./locale.js";

/** German phrases (formal "Sie"). */
export const de: Locale = {
  code: "de",
  toneLine: {
    neutral: { physical: "Bestellen Sie direkt auf dieser Seite.", service: "Buchen Sie direkt auf dieser Seite." },
    luxury: { physical: "Gönnen Sie sich etwas.", service: "Gönnen Sie sich etwas." },
    budget: { physical: "Der Preis auf einen Blick.", service: "Der Preis auf einen Blick." },
    eco: { physical: "Bewusst wählen.", service: "Bewusst wählen." },
    urgency: { physical: "Bestellen Sie noch heute.", service: "Buchen Sie noch heute." },
    gift: { physical: "Eine Geschenkidee.", service: "Eine Geschenkidee." },
  },
  ctaLabel: { physical: "Jetzt bestellen", service: "Jetzt buchen" },
  detailsTitle: "Im Detail",
  galleryTitle: "Weitere Bilder",
  galleryAlt: (title, i) => `${title}, Bild ${i}`,
  checkoutTitle: { physical: "Bestellung aufgeben", service: "Termin buchen" },
  submitLabel: { physical: "Bestellung bestätigen", service: "Buchung bestätigen" },
  footer: {
    physical: "Die Angaben im Bestellformular werden mit Ihrer Bestellung an den Verkäufer gesendet. Auf dieser Seite wird keine Zahlung erhoben.",
    service: "Die Angaben im Buchungsformular werden mit Ihrer Buchungsanfrage an den Anbieter gesendet. Auf dieser Seite wird keine Zahlung erhoben.",
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
