import type { Locale } from "./locale.js";

// French typography puts a non-breaking space before ":", "?", "!" and "%".
const S = "\u00a0";

/** French phrases. */
export const fr: Locale = {
  code: "fr",
  colon: `${S}: `,
  toneLine: {
    neutral: { physical: "Commandez directement sur cette page.", service: "Réservez directement sur cette page." },
    luxury: { physical: "Faites-vous plaisir.", service: "Faites-vous plaisir." },
    budget: { physical: "Le prix, affiché clairement.", service: "Le prix, affiché clairement." },
    eco: { physical: "Choisissez en conscience.", service: "Choisissez en conscience." },
    urgency: { physical: "Commandez dès aujourd’hui.", service: "Réservez dès aujourd’hui." },
    gift: { physical: "Une idée cadeau.", service: "Une idée cadeau." },
  },
  priceText: (f) => (f.hasSaving ? "{price} au lieu de {original_price}" : "{price}"),
  deliveryText: (d) => (d.kind === "free" ? "Livraison offerte." : `Livraison${S}: {delivery_price}.`),
  ctaLabel: { physical: "Commander", service: "Réserver" },
  overviewTitle: "L’essentiel",
  overview: {
    about: "Présentation",
    price: "Prix",
    saving: "Économie",
    savingText: `{saving} de moins, soit {saving_percent}${S}% de réduction sur {original_price}.`,
    delivery: "Livraison",
    order: {
      physical: { title: "Commander", text: "Remplissez le formulaire de cette page. Aucun paiement n’est demandé ici." },
      service: { title: "Réserver", text: "Remplissez le formulaire de cette page. Aucun paiement n’est demandé ici." },
    },
  },
  galleryTitle: "Photos",
  galleryAlt: (f, i) => `${f.title}, photo ${i}`,
  faqTitle: "Questions fréquentes",
  faq: {
    price: `Quel est le prix${S}?`,
    delivery: `Combien coûte la livraison${S}?`,
    order: {
      physical: { question: `Comment commander${S}?`, answer: "Remplissez le formulaire de cette page et envoyez-le." },
      service: { question: `Comment réserver${S}?`, answer: "Remplissez le formulaire de cette page et envoyez-le." },
    },
    payment: {
      question: `Dois-je payer sur cette page${S}?`,
      answer: "Non. Le formulaire nous transmet uniquement vos coordonnées ; aucun paiement n’est demandé sur cette page.",
    },
  },
  offerTitle: {
    neutral: "L’offre",
    luxury: "Faites-vous plaisir",
    budget: "Le prix",
    eco: "Choisissez en conscience",
    urgency: "N’attendez pas",
    gift: "Une idée cadeau",
  },
  checkoutTitle: { physical: "Passer commande", service: "Réserver un rendez-vous" },
  submitLabel: { physical: "Valider ma commande", service: "Confirmer ma réservation" },
  checkoutNote: {
    physical: `Aucun paiement sur cette page${S}: le formulaire nous transmet uniquement vos coordonnées.`,
    service: `Aucun paiement sur cette page${S}: le formulaire nous transmet uniquement vos coordonnées.`,
  },
  fieldLabels: { name: "Nom complet", phone: "Téléphone", address: "Adresse", city: "Ville", email: "E-mail", date: "Date souhaitée", notes: "Remarques" },
  ui: {
    deliveryPrice: (p) => `Livraison${S}: ${p}`,
    freeDelivery: "Livraison offerte",
    save: (p) => `Économisez ${p}${S}%`,
    requiredHint: "Les champs marqués d’un * sont obligatoires.",
    requiredMark: "obligatoire",
    choose: "Choisir…",
    previewNote: `Aperçu${S}: le formulaire est désactivé tant que la page n’est pas déployée.`,
    previewBanner: "Aperçu",
    confirmationTitle: `Merci${S}!`,
    confirmationText: {
      physical: "Nous avons bien reçu votre commande.",
      service: "Nous avons bien reçu votre demande de réservation.",
    },
    yourDetails: "Vos coordonnées",
    back: "Retour à la page",
    notFoundTitle: "Page introuvable",
    notFoundText: "Cette page n’existe pas ou n’est plus disponible.",
  },
};
